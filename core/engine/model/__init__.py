"""The model over tables and LM: scores (seed 000's log-linear score), translation options per span, derivations,
the exact true score (Algorithm 1) and the judgment predictor read at decode time. What the decoders search."""
