from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
    verbose_name = "Players' data"

    def ready(self) -> None:
        # Each app's personal_data.py declares its handler (accounts/registry.py).
        from django.utils.module_loading import autodiscover_modules

        autodiscover_modules("personal_data")
