from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    """Entries paid ahead online through Stripe Checkout (docs/decisions.md, "Paying online")."""

    name = "payments"

    def ready(self) -> None:
        from ledger import report
        from payments import reconciliation, tasks

        # The night report's "Online payments" section: the ledger names none of payments.
        report.use_online_payments(reconciliation.online_payments)
        tasks.listen()
