"""The local web explorer (``repolens ui``): a Starlette app over the index, and its page."""
