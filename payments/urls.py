from django.urls import path

from payments import views

app_name = "payments"
urlpatterns = [
    path("stripe/webhook", views.stripe_webhook, name="stripe-webhook"),
]
