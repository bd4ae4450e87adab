from django.urls import path

from ledger import views

app_name = "ledger"

_event = "events/<int:event_id>/"

urlpatterns = [
    path(_event + "night", views.night, name="night"),
    path(_event + "night.csv", views.night_csv_download, name="night_csv"),
    path(_event + "ledger/entry", views.entry, name="entry"),
    path(_event + "ledger/refund", views.refund, name="refund"),
    path(_event + "ledger/payout", views.payout, name="payout"),
    path(_event + "ledger/sponsor", views.sponsor, name="sponsor"),
]
