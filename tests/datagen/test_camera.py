"""The camera: straight down it is a plain scale; tilted, far things shrink; never past the horizon."""

from __future__ import annotations

import numpy as np
import pytest

from cribcam.datagen.camera import MAX_RAY_ANGLE, look_at, sample_camera


def _project(H: np.ndarray, pts) -> np.ndarray:
    p = np.hstack([np.asarray(pts, float), np.ones((len(pts), 1))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def test_straight_down_the_table_is_scaled_by_card_px():
    H = look_at((2.0, 3.0), 100.0, tilt=0.0, azimuth=0.0, roll=0.0, size=640).table()
    centre, right, below = _project(H, [(2, 3), (3, 3), (2, 4)])
    assert centre == pytest.approx([320, 320])
    assert right - centre == pytest.approx([100, 0])
    assert below - centre == pytest.approx([0, 100])


def test_tilted_the_far_side_looks_smaller():
    H = look_at((0.0, 0.0), 100.0, tilt=45.0, azimuth=0.0, roll=0.0, size=640).table()
    a, b, c, d = _project(H, [(-0.5, -2), (0.5, -2), (-0.5, 2), (0.5, 2)])
    near, far = sorted([np.linalg.norm(b - a), np.linalg.norm(d - c)])
    assert far / near > 1.3


def test_sampled_cameras_keep_the_whole_frame_on_the_table():
    # Every image corner's ray must hit the table in front of the camera, short of the horizon.
    for seed in range(200):
        cam = sample_camera(np.random.default_rng(seed), 640, (-3, -2, 3, 2), [(0.0, 0.0)], 40.0)
        Kinv = np.linalg.inv(cam.K)
        for u, v in [(0, 0), (640, 0), (0, 640), (640, 640)]:
            ray = cam.R.T @ (Kinv @ [u, v, 1.0])  # in world coordinates; the table's normal is -Z
            angle = np.degrees(np.arccos(ray[2] / np.linalg.norm(ray)))
            assert angle < MAX_RAY_ANGLE + 1e-6
        assert 40.0 <= cam.info["card_px"] <= 1.6 * 640
