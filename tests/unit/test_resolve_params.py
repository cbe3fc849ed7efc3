"""Parameter names read from signatures: what shadows a global inside a function."""

from __future__ import annotations

import pytest

from repolens.resolve.params import parameter_names


@pytest.mark.parametrize(
    ("signature", "name_last", "expected"),
    [
        ("def f(self, *args, key: str = 'a,b', **kwargs) -> None", False,
         {"self", "args", "key", "kwargs"}),
        ("def g(cb: Callable[[int], str] = lambda x: x)", False, {"cb"}),
        ("async def h(a, /, b, *, c=1)", False, {"a", "b", "c"}),
        ("function run(shout, [a, b], {c})", False, {"shout", "a", "b", "c"}),
        ("function f(a: number, {b, c}: X, ...rest: string[])", False, {"a", "b", "c", "rest"}),
        ("f = (cb: (x: number) => void, y = 2) =>", False, {"cb", "y"}),
        ("k = z =>", False, {"z"}),
        ("constructor(private repo: Repo)", False, {"repo"}),
        ("func (s *S) Run(w io.Writer, a, b int) (n int, err error)", False,
         {"s", "w", "a", "b", "n", "err"}),
        ("public void run(@NonNull final String shout, Map<String, Integer> m)", True,
         {"shout", "m"}),
        ("fn run(&mut self, f: fn(i64) -> String, (a, b): (i32, i32))", False,
         {"self", "f", "a", "b"}),
        ("def q(a='x)(,', b=\"y\\\"),(\", c: Map<K, V> = {}, d=`,`)", False, {"a", "b", "c", "d"}),
        # parameters without brackets or quotes are split plainly
        ("fn run(p: std::path::PathBuf, n: usize)", False, {"p", "n"}),
        ("func f(a, b int, c ...string)", False, {"a", "b", "c"}),
    ],
)  # fmt: skip
def test_parameter_names(signature: str, name_last: bool, expected: set[str]) -> None:
    assert parameter_names(signature, name_last=name_last) == expected
