"""What each audience reads: typed, frozen read models, one builder each.

- `common`: a card face, the event's summary, the pool; `to_json`, the one way a model becomes
  the JSON the API and the sockets send.
- `board`: the public board (`board_view`).
- `player`: a player's own state (`player_state`, `player_states`).
- `final`: a final event's results, for the final page, the players' pages and the printed sheet
  (`final_results`, `final_winners`).

Datetimes stay datetimes until `to_json`. Nothing here ever carries a face-down card's identity,
an email or a push endpoint. `api.schema` derives the API's description from these dataclasses.
"""
