"""Charts, the Jinja environment, HTML and PDF rendering, exports and atomic publishing."""
