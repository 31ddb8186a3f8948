"""Live counting: following a camera, locking onto a hand once it lies still."""
