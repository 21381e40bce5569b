"""Closing the loop: labelled development sets out of studies, tuning from the labels, weights for `generate`.

A bridge: it reads studies (:mod:`core.store`), measures (:mod:`core.stats`) and decodes (:mod:`core.engine`).
"""
