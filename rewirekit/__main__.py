from rewirekit.cli import main

main()
