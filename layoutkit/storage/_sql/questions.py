"""Questions asked on a board: staged, answered, then released together."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import NewQuestion, QuestionRecord
from layoutkit.storage._sql._base import TxBase, columns, record


class QuestionRows(TxBase):
    def insert_questions(
        self, board_id: int, new_questions: Sequence[NewQuestion]
    ) -> list[QuestionRecord]:
        self._write()
        if not new_questions:
            return []
        now = self.now()
        rows = [
            columns(
                q,
                board_id=board_id,
                state="staged",
                answers=None,
                created_at=now,
                released_at=None,
                answered_at=None,
            )
            for q in new_questions
        ]
        ids = self.conn.execute(
            insert(s.questions).returning(s.questions.c.id, sort_by_parameter_order=True), rows
        ).scalars()
        return [QuestionRecord(id=i, **r) for i, r in zip(ids, rows, strict=True)]

    def question(self, question_id: int) -> QuestionRecord | None:
        row = self.conn.execute(select(s.questions).where(s.questions.c.id == question_id)).first()
        return None if row is None else record(row, QuestionRecord)

    def questions(self, board_id: int, *, state: str | None = None) -> list[QuestionRecord]:
        query = select(s.questions).where(s.questions.c.board_id == board_id)
        if state is not None:
            query = query.where(s.questions.c.state == state)
        rows = self.conn.execute(query.order_by(s.questions.c.id))
        return [record(r, QuestionRecord) for r in rows]

    def answer_question(self, question_id: int, answers: Any) -> QuestionRecord:
        self._write()
        row = self.conn.execute(
            update(s.questions)
            .where(s.questions.c.id == question_id)
            .values(answers=answers, state="answered", answered_at=self.now())
            .returning(*s.questions.c)
        ).first()
        if row is None:
            raise NotFoundError(f"question {question_id}")
        return record(row, QuestionRecord)

    def release_questions(self, board_id: int) -> list[QuestionRecord]:
        self._write()
        rows = self.conn.execute(
            update(s.questions)
            .where(s.questions.c.board_id == board_id, s.questions.c.state == "answered")
            .values(state="released", released_at=self.now())
            .returning(*s.questions.c)
        )
        return sorted((record(r, QuestionRecord) for r in rows), key=lambda q: q.id)

    def delete_questions(self, question_ids: Iterable[int]) -> int:
        self._write()
        ids = list(question_ids)
        if not ids:
            return 0
        return self.conn.execute(delete(s.questions).where(s.questions.c.id.in_(ids))).rowcount
