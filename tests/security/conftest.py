"""Security test setup."""

from __future__ import annotations
