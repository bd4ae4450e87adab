from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "The night's money"

    def ready(self) -> None:
        from events import check_in
        from ledger.cash_box import NightLedger

        # The engine's paid flag asks the ledger what was collected and refunded.
        check_in.use_ledger(NightLedger())
