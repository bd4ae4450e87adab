from django.apps import AppConfig


class StandbyConfig(AppConfig):
    name = "standby"
    verbose_name = "Standby copy"
