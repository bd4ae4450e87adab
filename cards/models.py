"""Models arrive with the event engine."""
