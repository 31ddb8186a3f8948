# Marks this folder as the data package cribcam.bundled.datasets (cribcam/bundled/__init__.py).
