from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "The night's money"

    def ready(self) -> None:
        from events import check_in, simulation
        from ledger.cash_box import NightLedger
        from ledger.simulation import LedgerNight

        # The engine's paid flag asks the ledger what was collected and refunded.
        check_in.use_ledger(NightLedger())
        # `manage.py simulate_event` records the night's money as House would.
        simulation.record_nights_with(LedgerNight)
