"""The REST API under /api/ (docs/rules.md sections 5, 11.2 and 12.1); the schema and docs sit
beside it."""

from django.urls import URLPattern, path, re_path
from drf_spectacular.views import SpectacularAPIView

from api import docs, errors, organizations, seasons, staff, views

app_name = "api"
urlpatterns: list[URLPattern] = [
    # Events and the public reads
    path("events/", views.EventList.as_view(), name="events"),
    path("events/<int:event_id>/", views.EventDetail.as_view(), name="event"),
    path("events/<int:event_id>/board/", views.EventBoard.as_view(), name="board"),
    path("formats/", views.FormatList.as_view(), name="formats"),
    # Organizations and their venues
    path("organizations/", organizations.OrganizationList.as_view(), name="organizations"),
    path(
        "organizations/<int:organization_id>/venues/",
        organizations.Venues.as_view(),
        name="venues",
    ),
    # Series, seasons and players' histories
    path("series/", seasons.SeriesList.as_view(), name="series-list"),
    path("series/<int:series_id>/", seasons.SeriesDetail.as_view(), name="series"),
    path("series/<int:series_id>/next-event/", seasons.NextEvent.as_view(), name="next-event"),
    path("series/<int:series_id>/seasons/", seasons.Seasons.as_view(), name="seasons"),
    path("events/<int:event_id>/series/", seasons.EventSeries.as_view(), name="event-series"),
    path("seasons/<int:season_id>/", seasons.SeasonDetail.as_view(), name="season"),
    path(
        "seasons/<int:season_id>/download/",
        seasons.SeasonDownload.as_view(),
        name="season-download",
    ),
    path(
        "seasons/<int:season_id>/championship/",
        seasons.Championship.as_view(),
        name="championship",
    ),
    path(
        "players/<str:player_id>/history/",
        seasons.PlayerHistoryView.as_view(),
        name="player-history",
    ),
    path("me/history/", seasons.MyHistory.as_view(), name="my-history"),
    # A player's own place
    path("events/<int:event_id>/register/", views.Register.as_view(), name="register"),
    path("events/<int:event_id>/me/", views.MyRegistration.as_view(), name="me"),
    path(
        "registrations/<int:registration_id>/",
        views.RegistrationDetail.as_view(),
        name="registration",
    ),
    path(
        "registrations/<int:registration_id>/cancel/",
        views.RegistrationCancel.as_view(),
        name="cancel",
    ),
    path(
        "registrations/<int:registration_id>/checkout/", views.Checkout.as_view(), name="checkout"
    ),
    path(
        "registrations/<int:registration_id>/starting-selection/",
        views.StartingSelection.as_view(),
        name="starting-selection",
    ),
    path("registrations/<int:registration_id>/results/", views.Results.as_view(), name="results"),
    path(
        "registrations/<int:registration_id>/win-choice/",
        views.WinChoice.as_view(),
        name="win-choice",
    ),
    path(
        "registrations/<int:registration_id>/withdraw/", views.Withdraw.as_view(), name="withdraw"
    ),
    path("registrations/<int:registration_id>/claim/", views.PlaceClaim.as_view(), name="claim"),
    # House
    path(
        "events/<int:event_id>/registration/open/",
        views.RegistrationOpen.as_view(),
        name="registration-open",
    ),
    path(
        "events/<int:event_id>/registration/close/",
        views.RegistrationClose.as_view(),
        name="registration-close",
    ),
    path("events/<int:event_id>/start/", views.Start.as_view(), name="start"),
    path("events/<int:event_id>/waitlist/", views.Waitlist.as_view(), name="waitlist"),
    path(
        "registrations/<int:registration_id>/promote/",
        views.WaitlistPromote.as_view(),
        name="promote",
    ),
    path(
        "registrations/<int:registration_id>/remove/",
        views.RegistrationRemove.as_view(),
        name="remove",
    ),
    path("events/<int:event_id>/participants/", views.Participants.as_view(), name="participants"),
    path("events/<int:event_id>/pool/confirm/", views.PoolConfirm.as_view(), name="pool-confirm"),
    path("events/<int:event_id>/finalize/", views.Finalize.as_view(), name="finalize"),
    path("events/<int:event_id>/house/", views.HouseDashboard.as_view(), name="house"),
    path("events/<int:event_id>/checklist/", views.Checklist.as_view(), name="checklist"),
    path("events/<int:event_id>/cash-box/", views.CashBox.as_view(), name="cash-box"),
    path(
        "events/<int:event_id>/ledger/entries/",
        views.LedgerEntries.as_view(),
        name="ledger-entries",
    ),
    path(
        "events/<int:event_id>/ledger/refunds/",
        views.LedgerRefunds.as_view(),
        name="ledger-refunds",
    ),
    path(
        "events/<int:event_id>/ledger/payouts/",
        views.LedgerPayouts.as_view(),
        name="ledger-payouts",
    ),
    path(
        "events/<int:event_id>/ledger/sponsor/",
        views.LedgerSponsor.as_view(),
        name="ledger-sponsor",
    ),
    path("events/<int:event_id>/audit/", views.AuditExport.as_view(), name="audit"),
    path("registrations/<int:registration_id>/check-in/", views.CheckIn.as_view(), name="check-in"),
    path(
        "events/<int:event_id>/self-check-in/",
        views.SelfCheckInSwitch.as_view(),
        name="self-check-in-switch",
    ),
    path("events/<int:event_id>/check-in/", views.SelfCheckIn.as_view(), name="self-check-in"),
    path("events/<int:event_id>/check-in-all/", views.CheckInAll.as_view(), name="check-in-all"),
    path("registrations/<int:registration_id>/payment/", views.Payment.as_view(), name="payment"),
    path(
        "events/<int:event_id>/announcements/",
        views.Announcements.as_view(),
        name="announcements",
    ),
    path(
        "registrations/<int:registration_id>/check-in/undo/",
        views.CheckInUndo.as_view(),
        name="check-in-undo",
    ),
    path(
        "registrations/<int:registration_id>/corrections/",
        views.Corrections.as_view(),
        name="corrections",
    ),
    path("registrations/<int:registration_id>/reviews/", views.Reviews.as_view(), name="reviews"),
    path("reviews/<int:review_id>/resolve/", views.ReviewResolve.as_view(), name="review-resolve"),
    path(
        "registrations/<int:registration_id>/wild-reveal/",
        views.WildReveal.as_view(),
        name="wild-reveal",
    ),
    path(
        "registrations/<int:registration_id>/access-reset/",
        views.AccessReset.as_view(),
        name="access-reset",
    ),
    # The staff of an event and of a series: the same routes under each
    *(
        path(scope.prefix + route, staff.for_scope(view, scope), name=scope.url_names(name))
        for scope in staff.SCOPES
        for route, view, name in staff.ROUTES
    ),
    # The OpenAPI schema and the interactive docs
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", docs.SwaggerDocs.as_view(), name="docs"),
    path("docs/assets/<str:name>", docs.swagger_asset, name="swagger-asset"),
    # Anything else under /api/ answers in the API's error shape, not an HTML page.
    re_path(r"^", errors.not_found, name="not-found"),
]
