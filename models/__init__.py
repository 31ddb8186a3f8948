# Marks this folder as the data package cribcam.bundled.models (cribcam/bundled/__init__.py).
