"""Accounts made before sign-up verified emails keep signing in as before: their email counts as
verified (sign-up now confirms a new address with an emailed code)."""

from django.db import migrations


def verify_existing(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    for user in User.objects.exclude(email="").iterator():
        address = EmailAddress.objects.filter(user=user, email__iexact=user.email).first()
        if address is None:
            EmailAddress.objects.filter(user=user, primary=True).update(primary=False)
            EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
        elif not (address.verified and address.primary):
            EmailAddress.objects.filter(user=user, primary=True).exclude(pk=address.pk).update(
                primary=False
            )
            address.verified = address.primary = True
            address.save(update_fields=["verified", "primary"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(verify_existing, migrations.RunPython.noop)]
