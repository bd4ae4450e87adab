"""API test setup."""

from __future__ import annotations
