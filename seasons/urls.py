from django.urls import path

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
    path("house/series/<int:series_id>/staff", views.series_staff_add, name="staff_add"),
    path(
        "house/series/<int:series_id>/staff/<int:user_id>/role",
        views.series_staff_role,
        name="staff_role",
    ),
    path(
        "house/series/<int:series_id>/staff/<int:user_id>/remove",
        views.series_staff_remove,
        name="staff_remove",
    ),
    path("house/series/<int:series_id>/owner", views.series_owner, name="owner"),
    path("house/series/<int:series_id>/invitations", views.series_invite, name="invite"),
    path(
        "house/series/<int:series_id>/invitations/<int:invitation_id>/withdraw",
        views.series_invitation_withdraw,
        name="invitation_withdraw",
    ),
    path("house/series/<int:series_id>/leave", views.series_leave, name="leave"),
    path("house/series/<int:series_id>/defaults", views.series_defaults, name="defaults"),
    path(
        "house/series/invitations/<str:token>/",
        views.series_invitation,
        name="series_invitation",
    ),
    path("house/series/<int:series_id>/next-event", views.next_event, name="next_event"),
    path(
        "house/series/<int:series_id>/display-links",
        views.display_link_create,
        name="display_link_create",
    ),
    path(
        "house/series/<int:series_id>/display-links/revoke",
        views.display_link_revoke,
        name="display_link_revoke",
    ),
    path("house/series/<int:series_id>/seasons/new", views.season_new, name="season_new"),
    path("house/seasons/<int:season_id>/", views.season_house, name="season_house"),
    path("house/seasons/<int:season_id>/rules", views.season_rules, name="season_rules"),
    path(
        "house/seasons/<int:season_id>/championship",
        views.championship_new,
        name="championship_new",
    ),
]
