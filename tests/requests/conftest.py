"""One Hub emulator with the tiny models for every test of the request queue (uploading them is most of the setup)."""
from slmboard_requests_hub import hub  # noqa: F401  (a fixture)
