from rewirekit.cli import main

if __name__ == "__main__":  # importing the module (as the API docs do) runs nothing
    main()
