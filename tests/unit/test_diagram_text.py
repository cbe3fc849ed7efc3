"""Mermaid text from names that would break it, and folders folded to fit a node cap."""

from __future__ import annotations

from repolens.present.diagram import Diagram, Edge, Node
from repolens.present.mermaid import quote, render
from repolens.query.filegraph import fold


def test_markup_and_mermaid_syntax_in_a_name_become_entity_codes() -> None:
    text = quote('<img src=x onerror=alert(1)> "a" | `b` #c & d\nend')
    assert (
        text
        == '"#lt;img src=x onerror=alert(1)#gt; #quot;a#quot; #124; #96;b#96; #35;c #amp; d end"'
    )


def test_ids_are_generated_and_notes_are_comments() -> None:
    diagram = Diagram("t", "LR", notes=["50%% done\nnext"])
    diagram.add(Node("src/a b.py", "a b.py", "src", {"cycle"}))
    diagram.add(Node("end", "end"))
    diagram.edges.append(Edge("src/a b.py", "end", "L3", sure=False, cycle=True))
    text = render(diagram)
    assert '  subgraph g1["src"]\n    n0["a b.py"]\n  end' in text
    assert '  n0 -.->|"L3"| n1' in text and '  n1["end"]' in text
    assert "  %% 50% % done next" in text
    assert "  linkStyle 0 stroke:#d62728,stroke-width:2px" in text


def test_fold_opens_the_biggest_folders_that_fit() -> None:
    paths = [f"src/big/m{i}.py" for i in range(6)] + ["src/small/a.py", "src/small/b.py", "x.py"]
    keys = fold(paths, "", 8)
    assert {keys[p] for p in paths} == {*(p for p in paths if "big" in p), "src/small", "x.py"}
    keys = fold(paths, "", 3)
    assert set(keys.values()) == {"src/big", "src/small", "x.py"}
    assert set(fold(paths[:-1], "src", 2).values()) == {"src/big", "src/small"}
