"""One way to write dates and times on every page: "Wed 2 Dec 2026", "Wed 2 Dec 2026, 19:05"."""

DATE_FORMAT = "D j M Y"
DATETIME_FORMAT = "D j M Y, H:i"
TIME_FORMAT = "H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
