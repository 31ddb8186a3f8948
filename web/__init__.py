# Marks this folder as the data package cribcam.bundled.web (cribcam/bundled/__init__.py).
