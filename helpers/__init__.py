"""The ground floor: helpers every layer uses (the admin's read-only pages, files written once,
the answer of a busy database, the refusal log, secrets kept out of logs, the console mail).
Nothing here imports from the project; only Django and the libraries it runs with."""
