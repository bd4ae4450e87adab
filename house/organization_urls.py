"""An organization's House pages, under /house/organizations/: its own namespace, as a series'
pages have theirs."""

from django.urls import path

from house import organizations, staff_pages

app_name = "organizations"

urlpatterns = [
    path("new", organizations.organization_new, name="new"),
    path("<int:organization_id>/", organizations.organization_page, name="organization"),
    path("<int:organization_id>/venues", organizations.venue_add, name="venue_add"),
    # The staff section's forms (house/staff_pages.py), as a series' page has them.
    *staff_pages.urls("organization", "<int:scope_id>/"),
]
