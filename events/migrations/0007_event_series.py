"""Kept in the graph so the migrations after it keep their place. An event's series is the
seasons layer's (seasons/models.py `SeriesEvent`, seasons migration 0009), which the engine names
nowhere: databases migrated before this file was emptied also have a `series` column on the
events' table, which seasons 0009 moves to its own table and then drops."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("events", "0006_event_pool_first_confirmed_at")]

    operations = []
