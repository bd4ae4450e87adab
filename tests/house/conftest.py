"""Shared fixtures for the House pages."""

from __future__ import annotations
