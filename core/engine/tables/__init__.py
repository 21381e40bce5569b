"""Tables: rules and their formats (Moses, our own), text and binary (``.pstable``) tables, the rows a binary
table gives the compiled cores, and seed 002's pattern tables (:mod:`~core.engine.tables.patterns`). The data at
the bottom of the pipeline: nothing here imports the model or the decoders."""
