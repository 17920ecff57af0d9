"""The conversion of a loop read's statement to libpq's numbered parameters."""

from app.kit.db.loop_reads import _statement, encodable


def test_question_marks_become_numbered_parameters_and_the_conversion_is_kept():
    name, text = _statement("SELECT a FROM t WHERE id = ? AND owner = ?")
    assert text == b"SELECT a FROM t WHERE id = $1 AND owner = $2"
    assert _statement("SELECT a FROM t WHERE id = ? AND owner = ?") == (name, text)
    assert _statement("SELECT b FROM t WHERE id = ?")[0] != name


def test_only_str_int_and_none_go_without_psycopgs_dumpers():
    assert encodable(("a", 1, None))
    assert not encodable((True,)) and not encodable((0.5,)) and not encodable((b"x",))
