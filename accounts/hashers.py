"""How passwords are stored: Argon2id at the OWASP Password Storage Cheat Sheet's minimum.

Django's own Argon2 hasher asks for 100 MiB and 8 lanes per password: about a second of a laptop
core each, and 100 MiB for every sign-in running at once. OWASP's minimum, m = 19 MiB, t = 2,
p = 1, costs a tenth of that (docs/decisions.md, "Accounts"; figures in docs/performance.md,
"Sign-up and sign-in"). Its hashes are Django's `argon2$argon2id$v=19$m=19456,t=2,p=1$...`, so
Django's stock hasher still reads them, and a stored hash with other parameters is rehashed with
these at the next sign-in.
"""

from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher


class OwaspArgon2PasswordHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024  # KiB: 19 MiB
    parallelism = 1
