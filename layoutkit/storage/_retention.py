"""How long the store keeps what it would otherwise forget at once."""

from datetime import timedelta

#: Trashed cards can be restored this long, then ``purge_deleted_cards`` drops them.
CARD_RETENTION = timedelta(days=30)
#: A request key replays its receipt this long, then ``purge_request_keys`` drops it.
REQUEST_KEY_RETENTION = timedelta(hours=24)
