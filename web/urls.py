from django.urls import path

from web import check_in, display, js_catalog, views

app_name = "web"
urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.health, name="health"),
    path("jsi18n/<str:language>.js", js_catalog.js_catalog, name="js_catalog"),
    path("rules/", views.rules, name="rules"),
    path("settings/", views.settings_page, name="settings"),
    path("events/<int:event_id>/", views.event_page, name="event"),
    path("events/<int:event_id>/partial", views.event_partial, name="event_partial"),
    path("events/<int:event_id>/register", views.register, name="register"),
    path("events/<int:event_id>/start", views.start_confirm, name="start_confirm"),
    path("events/<int:event_id>/report", views.report, name="report"),
    path("events/<int:event_id>/keep", views.keep, name="keep"),
    path("events/<int:event_id>/leave", views.leave, name="leave"),
    path("events/<int:event_id>/check-in", check_in.self_check_in, name="self_check_in"),
    path("events/<int:event_id>/cancel", views.cancel, name="cancel"),
    path("events/<int:event_id>/claim", views.claim, name="claim"),
    path("events/<int:event_id>/pay", views.pay, name="pay"),
    path("board/<int:event_id>/", views.board, name="board"),
    path("board/<int:event_id>/venue/<str:token>/", views.board_venue, name="board_venue"),
    path("display/<str:token>/", display.display_page, name="display"),
    path("display/<str:token>/now", display.display_now, name="display_now"),
    path("board/<int:event_id>/partial", views.board_partial, name="board_partial"),
    path("board/<int:event_id>/final/", views.board_final, name="board_final"),
    path("board/<int:event_id>/snapshot", views.board_json, name="board_snapshot"),
]
