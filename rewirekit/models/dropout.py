r"""Dropout on CPU with the masks of :func:`torch.nn.functional.dropout`, drawn faster.

On CPU, ``F.dropout(x, p)`` computes ``x * (noise / q)`` with ``q = 1 - p`` and
``noise = empty_like(x).bernoulli_(q)``, and ``bernoulli_`` runs a serial kernel: on a dense
bag-of-words input (Amazon Computers, 13752 × 767) it took 58% of a GPRGNN epoch's CPU time,
about 13 ns per element (``docs/training_profile_computers.txt``, run on the code before this
module).

That kernel draws from torch's default CPU generator, a 32-bit Mersenne Twister (MT19937,
Matsumoto & Nishimura, 1998), element by element in memory order: two consecutive outputs
form a 64-bit word (the first is the high half), its low 53 bits ``m`` give the uniform
``u = m·2⁻⁵³``, and the element is 1 when ``u < q``. As ``q·2⁵³`` is exact in double
precision, that is the integer test ``m < ⌈q·2⁵³⌉``. :func:`dropout` computes the same stream
with numba (the twist, the tempering and the comparison in vectorisable loops), taking the
generator's state from :func:`torch.get_rng_state` and handing the advanced state back with
:func:`torch.set_rng_state`, then scales and multiplies with the same torch operations as
``F.dropout``. Outputs, gradients and the generator's later draws are equal to
``F.dropout``'s bit for bit (the tests compare them); that is what lets a faster trainer
reproduce stored results. Where that equality is not established (not on CPU, not float32 or
float64, not contiguous, or a generator state of another layout) it calls ``F.dropout``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

_N, _M = 624, 397  # MT19937's state length and its middle word
#: Bytes of torch's serialised CPU generator state and where its fields lie: ``left``
#: (int32; one more than the outputs drawable before the next twist), ``next`` (uint64;
#: index of the next word), then the 624 words of the state, each stored as a uint64.
_STATE_BYTES, _LEFT, _NEXT, _WORDS = 5056, 8, 16, 24
_CHUNK = 8192  # mask elements drawn per pass, so the raw words stay in cache
_U32 = np.uint32


def dropout(x: Tensor, p: float, training: bool) -> Tensor:
    """``F.dropout(x, p, training)``, with the mask drawn by :func:`_bernoulli` on CPU."""
    if not training or not 0.0 < p < 1.0 or not _reproducible(x):
        return F.dropout(x, p=p, training=training)
    keep = 1.0 - p
    noise = _bernoulli(torch.empty_like(x, memory_format=torch.contiguous_format), keep)
    if noise is None:
        return F.dropout(x, p=p, training=training)
    return x * noise.div_(keep)


def _reproducible(x: Tensor) -> bool:
    """Whether torch would fill the mask of ``x`` in the order :func:`_fill` writes it."""
    return (
        x.device.type == "cpu"
        and x.layout == torch.strided
        and x.dtype in (torch.float32, torch.float64)
        and x.is_contiguous()
        and x.numel() > 0
    )


def _bernoulli(out: Tensor, keep: float) -> Tensor | None:
    """``out.bernoulli_(keep)`` from the default generator, or None if its state has a
    layout this module does not know."""
    raw = torch.get_rng_state().numpy()
    if raw.size != _STATE_BYTES:
        return None
    left = int(raw[_LEFT : _LEFT + 4].view(np.int32)[0])
    word = int(raw[_NEXT : _NEXT + 8].view(np.uint64)[0])
    if not (1 <= left <= _N and word <= _N):
        return None
    state = raw[_WORDS : _WORDS + 8 * _N].view(np.uint64).astype(_U32)
    threshold = np.uint64(math.ceil(keep * 2.0**53))
    left, word = _fill(state, left, word, threshold, out.view(-1).numpy())
    advanced = raw.copy()
    advanced[_LEFT : _LEFT + 4] = np.array([left], np.int32).view(np.uint8)
    advanced[_NEXT : _NEXT + 8] = np.array([word], np.uint64).view(np.uint8)
    advanced[_WORDS : _WORDS + 8 * _N] = state.astype(np.uint64).view(np.uint8)
    torch.set_rng_state(torch.from_numpy(advanced))
    return out


@numba.njit(cache=True)
def _fill(state, left, word, threshold, out):  # pragma: no cover - compiled
    """Write ``m < threshold`` for consecutive 53-bit draws into ``out``; advance the
    generator (``state`` in place, ``left`` and ``word`` returned) as torch would."""
    raw = np.empty(2 * _CHUNK, _U32)
    done = 0
    while done < out.size:
        count = min(_CHUNK, out.size - done)
        drawn = 0
        while drawn < 2 * count:
            if left == 1:
                _twist(state)
                left, word = _N + 1, 0
            take = min(left - 1, 2 * count - drawn)
            _temper(state[word : word + take], raw[drawn : drawn + take])
            drawn += take
            word += take
            left -= take
        _compare(raw[: 2 * count], threshold, out[done : done + count])
        done += count
    return left, word


@numba.njit(cache=True)
def _twist(state):  # pragma: no cover - compiled
    """MT19937's regeneration of all 624 words."""
    for k in range(_N - _M):
        y = (state[k] & _U32(0x80000000)) | (state[k + 1] & _U32(0x7FFFFFFF))
        state[k] = state[k + _M] ^ (y >> _U32(1)) ^ ((y & _U32(1)) * _U32(0x9908B0DF))
    for k in range(_N - _M, _N - 1):
        y = (state[k] & _U32(0x80000000)) | (state[k + 1] & _U32(0x7FFFFFFF))
        state[k] = state[k + _M - _N] ^ (y >> _U32(1)) ^ ((y & _U32(1)) * _U32(0x9908B0DF))
    y = (state[_N - 1] & _U32(0x80000000)) | (state[0] & _U32(0x7FFFFFFF))
    state[_N - 1] = state[_M - 1] ^ (y >> _U32(1)) ^ ((y & _U32(1)) * _U32(0x9908B0DF))


@numba.njit(cache=True)
def _temper(words, out):  # pragma: no cover - compiled
    """MT19937's output function, word by word."""
    for j in range(words.size):
        y = words[j]
        y ^= y >> _U32(11)
        y ^= (y << _U32(7)) & _U32(0x9D2C5680)
        y ^= (y << _U32(15)) & _U32(0xEFC60000)
        y ^= y >> _U32(18)
        out[j] = y


@numba.njit(cache=True)
def _compare(raw, threshold, out):  # pragma: no cover - compiled
    """Element ``j`` is 1 when the low 53 bits of ``raw[2j] << 32 | raw[2j + 1]`` are below
    ``threshold``."""
    low = np.uint64(0x1FFFFF)
    for j in range(out.size):
        m = ((np.uint64(raw[2 * j]) & low) << np.uint64(32)) | np.uint64(raw[2 * j + 1])
        out[j] = m < threshold
