"""One owner for players' data (accounts/registry.py): every model that points at an account is
declared by some app's handler, so the download shows it and a deletion erases or relabels it."""

from __future__ import annotations

from django.apps import apps
from django.contrib.auth import get_user_model

from accounts import registry


def test_every_model_that_points_at_an_account_has_a_handler_of_players_data():
    user_model = get_user_model()
    pointing = {
        model
        for model in apps.get_models(include_auto_created=True)
        for field in model._meta.get_fields(include_hidden=True)
        if field.is_relation
        and not field.auto_created
        and (field.many_to_one or field.one_to_one)
        and field.related_model is user_model
    }
    pointing.add(user_model)
    assert len(pointing) > 10  # the project's own, Django's and allauth's
    undeclared = sorted(model._meta.label for model in pointing - registry.covered())
    assert not undeclared, f"no handler of players' data declares {undeclared}"


def test_a_deletion_relabels_registrations_before_anything_follows_their_labels():
    stages = [handler.stage for handler in registry.handlers()]
    assert stages == sorted(stages)
    assert registry.handlers()[0].name == "registrations"
    names = [handler.name for handler in registry.sections()]
    assert len(names) == len(set(names))
    assert names[0] == "account"
