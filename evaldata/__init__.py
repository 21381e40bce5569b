"""The bundled demo data, installed with the package (``evaldata/demo``); the rest of this folder is the recipe's
output and stays in the source tree. :func:`core.demo.demo_files` finds the demo here in an installed copy."""
