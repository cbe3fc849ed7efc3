"""Dynamic-dispatch synthesis: calls that go through a value, a name or a type.

A callback stored and invoked later, an event emitted by name, a handler looked up in a
table, a method called on an interface: the code that runs is decided at run time, and no
reference names it. Each channel family is one module (``synthesis/<channel>.py``) that
pairs a wiring site with a dispatch site, both resolved to project symbols, and emits
``calls`` edges with provenance ``synthesized`` whose metadata names the channel and where
the wiring is. A channel that cannot pair confidently emits nothing: a wrong edge costs an
agent more than a missing one.
"""
