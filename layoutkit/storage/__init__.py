"""Durable state of a workspace: the :class:`Store` protocol, its SQL backend and blobs.

Open a store with :func:`open_store`, then work inside transactions::

    store = open_store("sqlite:///boards.db")
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        board = tx.create_board(ws.id, "roadmap", tags=["Q3"])
        tx.lock_board(board.id)
        tx.insert_cards(board.id, [NewCard("note", {"text": "hi"}, 0, 0, 200, 80, "ai", "agent:x")])

Reads go through ``store.read()`` with the same ``tx`` methods. The service
types against the :class:`Store` and :class:`Tx` protocols (``protocols``);
``SqlStore``/``SqlTx`` implement them with one module per resource family
under ``_sql``. Opening a store brings its schema to the newest Alembic
revision (``_migrations``, scripts in ``migrations/versions``).
"""

from layoutkit.storage._blobs import BlobStore, FileBlobStore, TableBlobStore, blob_key
from layoutkit.storage._errors import BusyError, ConflictError, NotFoundError, StorageError
from layoutkit.storage._records import (
    AnnotationRecord,
    ApiTokenRecord,
    AuditEventRecord,
    BoardRecord,
    BoardRevs,
    CardBox,
    CardPicture,
    CardRecord,
    CardVersionRecord,
    ComponentRecord,
    EdgeRecord,
    FaceRow,
    InvitationRecord,
    NewCard,
    NewEdge,
    NewQuestion,
    PresenceRecord,
    ProjectMemoryRecord,
    ProjectRecord,
    QuestionRecord,
    RequestKeyRecord,
    ReviewRuleRecord,
    ReviewRunRecord,
    SearchDocHit,
    SearchTaskRef,
    SearchTaskRow,
    ShareLinkRecord,
    TaskEmbeddingRecord,
    TaskEmbeddingStamp,
    TaskEventRecord,
    TaskRecord,
    TaskRefRecord,
    TaskTitleQuery,
    TaskTitleRow,
    TaskVocabRecord,
    WebhookDeliveryRecord,
    WebhookRecord,
    WorkspaceRecord,
    fold_tag,
    fold_tags,
    input_hash,
)
from layoutkit.storage._retention import CARD_RETENTION, REQUEST_KEY_RETENTION
from layoutkit.storage._sql import SqlStore, SqlTx, open_store
from layoutkit.storage.protocols import Store, Tx

__all__ = [
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
