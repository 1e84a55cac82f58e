"""quintet: rules engines, records and tools for Quinto and Quintus.

The rules engines live in :mod:`quintet.quinto` (and, next, :mod:`quintet.quintus`);
cards in :mod:`quintet.cards`; the shared state protocol in :mod:`quintet.game`;
records and the scorer in :mod:`quintet.record`.
"""

__version__ = "0.1.0"
