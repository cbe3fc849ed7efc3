"""``affected``: a reviewer's context for a diff: what it changes, what depends on that,
which tests reach it, and the changed symbols' code, within a budget."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from repolens.discover.gitdiff import DiffError, git_diff, parse_patch
from repolens.mcp.runtime import ToolInputError
from repolens.mcp.source import SourceCache
from repolens.mcp.toolkit import LONG, Budget, ProjectPath, ToolGroup, tool
from repolens.mcp.tools_search import finish
from repolens.present.affected import affected_lines
from repolens.present.format import Answer, add_code, cite, languages_of
from repolens.query.affected import affected

MAX_PATCH = 2_000_000


class ChangeTools(ToolGroup):
    @tool("affected", "What a diff affects")
    def affected(
        self,
        rev: Annotated[
            str | None,
            Field(max_length=200, description="Compare the working tree with this revision, or"
                  " a range 'A..B' (default: the working tree against HEAD)."),
        ] = None,
        staged: Annotated[bool, Field(description="The staged changes instead.")] = False,
        patch: Annotated[
            str | None,
            Field(max_length=MAX_PATCH, description="A unified diff to read instead of git."),
        ] = None,
        depth: Annotated[int, Field(ge=1, le=10, description="Steps of dependents.")] = 3,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:  # fmt: skip
        """Review a diff (the working tree, staged changes, a revision or a patch): the
        symbols it changes, what depends on them, the tests that reach them, then the
        changed code. Use before committing or reviewing."""
        if sum((rev is not None, staged, patch is not None)) > 1:
            raise ToolInputError("give one of rev, staged and patch")
        handle = self.rt.handle(projectPath)
        try:
            changes = parse_patch(patch) if patch is not None else git_diff(
                str(handle.root), staged=staged, rev=rev)  # fmt: skip
        except DiffError as exc:
            raise ToolInputError(str(exc)) from None
        with handle.reader() as conn:
            found = affected(conn, changes, depth=depth)
            source = SourceCache(handle.root, conn)
            languages = languages_of(conn, {c.symbol.file for c in found.changed})
            out = Answer(handle.budget(budget, LONG))
            for line in affected_lines(found):
                out.add_clipped(line)
            for item in found.changed:
                sym = item.symbol
                lines = source(sym.file)
                if lines is None:
                    continue
                body = lines[sym.line - 1 : max(sym.end_line, sym.line)]
                header = f"\n## {sym.qualified_name} — {cite(sym.file, sym.line, sym.end_line)}"
                if add_code(out, header, body, sym.line, language=languages.get(sym.file, ""),
                            marks=frozenset(item.lines), focus=item.lines[0]) is None:  # fmt: skip
                    out.leave_out(f"code of {sym.qualified_name}",
                                  f'node symbol="{cite(sym.file, sym.line)}"')  # fmt: skip
        return finish(out, handle, source.stale_note())
