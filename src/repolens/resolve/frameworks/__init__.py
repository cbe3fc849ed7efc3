"""Framework rules: what a framework's conventions wire that no call spells.

One module per framework (``frameworks/<name>.py``): routes to their handlers, entry
points, decorators that register callbacks. Each reads the project the ladder resolved and
adds edges with provenance ``framework``.
"""
