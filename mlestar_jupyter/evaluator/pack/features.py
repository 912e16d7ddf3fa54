"""Feature extractors for the reference solutions of non-tabular pack tasks (numpy/scipy only)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=8)
def _mel_filterbank(sr: int, n_fft: int, n_mels: int) -> np.ndarray:
    def hz_to_mel(f: np.ndarray) -> np.ndarray:
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel_to_hz(m: np.ndarray) -> np.ndarray:
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    mels = np.linspace(hz_to_mel(np.array(0.0)), hz_to_mel(np.array(sr / 2)), n_mels + 2)
    bins = np.floor((n_fft + 1) * mel_to_hz(mels) / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1))
    for i in range(1, n_mels + 1):
        lo, mid, hi = bins[i - 1], bins[i], bins[i + 1]
        for k in range(lo, mid):
            fb[i - 1, k] = (k - lo) / max(mid - lo, 1)
        for k in range(mid, hi):
            fb[i - 1, k] = (hi - k) / max(hi - mid, 1)
    return fb


def mfcc(
    signal: np.ndarray, sr: int, n_mfcc: int = 20, n_mels: int = 40, n_fft: int = 256, hop: int = 80
) -> np.ndarray:
    """MFCCs of a mono signal, shape ``(frames, n_mfcc)`` (Hamming window, log-mel, DCT-II)."""
    from scipy.fft import dct

    x = np.asarray(signal, dtype=float)
    if x.size < n_fft:
        x = np.pad(x, (0, n_fft - x.size))
    x = np.append(x[0], x[1:] - 0.97 * x[:-1])  # pre-emphasis
    frames = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop] * np.hamming(n_fft)
    power = np.abs(np.fft.rfft(frames, n_fft)) ** 2 / n_fft
    mel = np.log(power @ _mel_filterbank(sr, n_fft, n_mels).T + 1e-10)
    return dct(mel, type=2, axis=1, norm="ortho")[:, :n_mfcc]


def mfcc_stats(signal: np.ndarray, sr: int, n_mfcc: int = 20) -> np.ndarray:
    """Mean, std, min and max of each MFCC over time, plus their deltas' std and the duration."""
    m = mfcc(signal, sr, n_mfcc)
    d = np.diff(m, axis=0) if len(m) > 1 else np.zeros_like(m)
    return np.concatenate([m.mean(0), m.std(0), m.min(0), m.max(0), d.std(0), [len(signal) / sr]])


def series_features(series: Sequence[np.ndarray], points: int = 64, n_fft: int = 16) -> np.ndarray:
    """Summary stats, a fixed-length resampling and low FFT magnitudes of variable-length series."""
    rows = []
    for s in series:
        s = np.asarray(s, dtype=float)
        grid = np.interp(np.linspace(0, len(s) - 1, points), np.arange(len(s)), s)
        spec = np.abs(np.fft.rfft(s - s.mean()))[1 : n_fft + 1]
        spec = np.pad(spec, (0, n_fft - len(spec)))
        q = np.quantile(s, [0.05, 0.25, 0.5, 0.75, 0.95])
        rows.append(
            np.concatenate(
                [[len(s), s.mean(), s.std(), s.min(), s.max(), np.abs(s).mean()], q, grid, spec]
            )
        )
    return np.vstack(rows)
