"""Statistics of human judgments: agreement, significance, judgment records, the published report tables.

Imports only itself, :mod:`core.textio` and :mod:`core.errors` (and the
package version for signatures).
"""
