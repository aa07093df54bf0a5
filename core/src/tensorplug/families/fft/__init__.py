"""The fft family: the discrete Fourier transforms (``tp.fft``): Fft, Ifft, Rfft, Irfft. Here: spec,
ops, gradients, jvps, batching."""
