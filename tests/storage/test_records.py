"""Tag folding, input hashing and the package's public surface."""

from __future__ import annotations

import inspect

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import layoutkit.storage as storage
from layoutkit.storage import fold_tag, fold_tags, input_hash

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


def test_folding_never_forks_a_tag_on_case_or_diacritics() -> None:
    assert fold_tag("Café") == fold_tag("CAFE") == fold_tag("cafe") == "cafe"
    assert fold_tag("  Road   Map ") == "road map"
    assert fold_tag("Straße") == "strasse"
    assert fold_tags(["Q3", "q3", "", "  ", "Ideas", "IDEAS", "ideás"]) == ["q3", "ideas"]


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(max_codepoint=0x24F), max_size=20))
def test_folding_is_idempotent_and_case_blind(tag: str) -> None:
    folded = fold_tag(tag)
    assert fold_tag(folded) == folded
    # Letters whose case does not round-trip (dotless i) are letters of their own.
    assume(tag.upper().lower() == tag.lower())
    assert fold_tag(tag.upper()) == fold_tag(tag.lower()) == folded


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_input_hash_ignores_key_order_only(params: dict) -> None:
    reordered = dict(reversed(list(params.items())))
    assert input_hash("compose_board", params) == input_hash("compose_board", reordered)
    assert input_hash("compose_board", params) != input_hash("update_cards", params)
    assert input_hash("op", {**params, "\x00extra": 1}) != input_hash("op", params)


def test_public_surface_is_pinned() -> None:
    assert sorted(storage.__all__) == sorted(
        [
            "CARD_RETENTION",
            "REQUEST_KEY_RETENTION",
            "AnnotationRecord",
            "ApiTokenRecord",
            "AuditEventRecord",
            "BlobStore",
            "BoardRecord",
            "BoardRevs",
            "BusyError",
            "CardBox",
            "CardPicture",
            "CardRecord",
            "CardVersionRecord",
            "ComponentRecord",
            "ConflictError",
            "EdgeRecord",
            "FaceRow",
            "FileBlobStore",
            "InvitationRecord",
            "NewCard",
            "NewEdge",
            "NewQuestion",
            "NotFoundError",
            "PresenceRecord",
            "ProjectMemoryRecord",
            "ProjectRecord",
            "QuestionRecord",
            "RequestKeyRecord",
            "ReviewRuleRecord",
            "ReviewRunRecord",
            "SearchDocHit",
            "SearchTaskRef",
            "SearchTaskRow",
            "ShareLinkRecord",
            "SqlStore",
            "SqlTx",
            "StorageError",
            "Store",
            "TableBlobStore",
            "TaskEmbeddingRecord",
            "TaskEmbeddingStamp",
            "TaskEventRecord",
            "TaskRecord",
            "TaskRefRecord",
            "TaskTitleQuery",
            "TaskTitleRow",
            "TaskVocabRecord",
            "Tx",
            "WebhookDeliveryRecord",
            "WebhookRecord",
            "WorkspaceRecord",
            "blob_key",
            "fold_tag",
            "fold_tags",
            "input_hash",
            "open_store",
        ]
    )
    for name in storage.__all__:
        assert getattr(storage, name) is not None


def test_the_sql_store_satisfies_the_protocol() -> None:
    store = storage.open_store()
    try:
        assert isinstance(store, storage.Store)
        assert isinstance(store.blobs, storage.BlobStore)
    finally:
        store.close()


def test_the_sql_transaction_implements_every_tx_method_with_its_signature() -> None:
    # The service types against the protocol; this keeps the backend honest
    # about every method, argument and default without a static checker.
    declared = {
        name: value
        for family in storage.Tx.__mro__
        if family.__module__ == storage.Tx.__module__
        for name, value in vars(family).items()
        if callable(value) and not name.startswith("_")
    }
    assert len(declared) > 50
    for name, method in declared.items():
        implemented = getattr(storage.SqlTx, name)
        assert inspect.signature(implemented) == inspect.signature(method), name
    assert isinstance(vars(storage.Tx)["blobs"], property)
