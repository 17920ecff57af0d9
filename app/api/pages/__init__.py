"""Pages people open in a browser (plain HTML with an inline script, no front-end build)."""
