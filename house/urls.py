from django.urls import path

from house import staff_pages, views

app_name = "house"

_event = "events/<int:event_id>/"
_player = _event + "players/<int:registration_id>/"

urlpatterns = [
    path("", views.events, name="events"),
    path("tonight", views.tonight, name="tonight"),
    path("events/new", views.event_new, name="event_new"),
    path(_event, views.dashboard, name="dashboard"),
    path(_event + "live", views.dashboard_partial, name="dashboard_partial"),
    path(_event + "edit", views.event_edit, name="event_edit"),
    # The staff and displays sections' forms (house/staff_pages.py), as a series' page has them.
    *staff_pages.urls("event", "events/<int:scope_id>/"),
    path("invitations/<str:token>", staff_pages.invitation, name="invitation"),
    path(_event + "registration/open", views.registration_open, name="registration_open"),
    path(_event + "registration/close", views.registration_close, name="registration_close"),
    path(_event + "start", views.event_start, name="event_start"),
    path(_event + "participants", views.participant_add, name="participant_add"),
    path(_event + "self-check-in", views.self_check_in_switch, name="self_check_in_switch"),
    path(_event + "check-in-all", views.check_in_all, name="check_in_all"),
    path(_event + "announcements", views.announcement_send, name="announcement_send"),
    path(_event + "sheet", views.results_sheet, name="results_sheet"),
    path(_event + "pool", views.pool_confirm, name="pool_confirm"),
    path(_event + "finalize", views.event_finalize, name="event_finalize"),
    path(_event + "audit.csv", views.audit_csv_download, name="audit_csv"),
    path(_event + "audit.json", views.audit_json, name="audit_json"),
    path(_event + "scoreholio", views.scoreholio_upload, name="scoreholio_upload"),
    path(_event + "scoreholio/clear", views.scoreholio_clear, name="scoreholio_clear"),
    path(_event + "reviews/<int:review_id>/resolve", views.review_resolve, name="review_resolve"),
    path(_player + "check-in", views.check_in, name="check_in"),
    path(_player + "check-in/undo", views.check_in_undo, name="check_in_undo"),
    path(_player + "cancel", views.registration_cancel, name="registration_cancel"),
    path(_player + "promote", views.waitlist_promote, name="waitlist_promote"),
    path(_player + "remove", views.registration_remove, name="registration_remove"),
    path(_player + "payment", views.payment_mark, name="payment_mark"),
    path(_player + "result", views.result_submit, name="result_submit"),
    path(_player + "win-choice", views.win_choice, name="win_choice"),
    path(_player + "starting-selection", views.starting_selection, name="starting_selection"),
    path(_player + "correct", views.result_correct, name="result_correct"),
    path(_player + "review", views.review_open, name="review_open"),
    path(_player + "withdraw", views.withdraw, name="withdraw"),
    path(_player + "access-reset", views.access_reset, name="access_reset"),
    path(_player + "reveal-wild", views.wild_reveal, name="wild_reveal"),
]
