from django.urls import path
from django.views.generic import RedirectView

from house import staff_pages
from seasons import views

app_name = "seasons"
urlpatterns = [
    path("seasons/<int:season_id>/", views.season_page, name="season"),
    path("seasons/<int:season_id>/board/", views.season_board, name="season_board"),
    path("seasons/<int:season_id>/season.csv", views.season_csv_download, name="season_csv"),
    path("seasons/<int:season_id>/season.json", views.season_json_download, name="season_json"),
    path("players/<str:player_id>/", views.history, name="history"),
    path("me/history/", views.my_history, name="my_history"),
    path("house/series/new/", views.series_new, name="series_new"),
    path("house/series/<int:series_id>/", views.series_page, name="series"),
    path("house/series/<int:series_id>/audit.json", views.series_audit_json, name="audit_json"),
    path("house/series/<int:series_id>/events", views.series_event_add, name="event_add"),
    path(
        "house/series/<int:series_id>/events/<int:event_id>/remove",
        views.series_event_remove,
        name="event_remove",
    ),
    # The staff and displays sections' forms (house/staff_pages.py), as an event's pages have them.
    *staff_pages.urls("series", "house/series/<int:scope_id>/"),
    path("house/series/<int:series_id>/defaults", views.series_defaults, name="defaults"),
    # A series' invitation is accepted on the one invitation page (house/staff_pages.py).
    path(
        "house/series/invitations/<str:token>/",
        RedirectView.as_view(pattern_name="staff_invitation", permanent=True),
        name="series_invitation",
    ),
    path("house/series/<int:series_id>/next-event", views.next_event, name="next_event"),
    path("house/series/<int:series_id>/seasons/new", views.season_new, name="season_new"),
    path("house/seasons/<int:season_id>/", views.season_house, name="season_house"),
    path("house/seasons/<int:season_id>/rules", views.season_rules, name="season_rules"),
    path(
        "house/seasons/<int:season_id>/championship",
        views.championship_new,
        name="championship_new",
    ),
]
