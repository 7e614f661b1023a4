"""Probe M on the site build (M2): the default folders under build/ are robeval's own only while no link leads out
of build/; a default linked to a user's folder is judged like --site-dir (empty, or carrying robeval's marker), so
a build never empties a folder it did not write."""

import re

import pytest

from robeval.core.io import check_owned_folder, mark_owned_folder, owned_folder


def _user_folder(path):
    (path / "sub").mkdir(parents=True)
    (path / "index.html").write_text("page")
    (path / "notes.txt").write_text("notes")
    (path / "sub" / "keep.txt").write_text("x")
    return {p.relative_to(path): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def _files(path):
    return {p.relative_to(path): p.read_bytes() for p in path.rglob("*") if p.is_file()}


@pytest.mark.parametrize("which", ["site", "work"])
def test_a_default_folder_linked_to_a_user_folder_is_not_emptied(tmp_results, which):
    # M2: `ln -s ~/web build/site; robeval site ...` deleted notes.txt and sub/keep.txt of ~/web
    from robeval.core.site import build as site

    web = tmp_results / "web"
    before = _user_folder(web)
    build = tmp_results / "build_dir"
    link = build / "site" if which == "site" else build / "site-src" / "smoke"
    link.parent.mkdir(parents=True)
    link.symlink_to(web)
    option = "site_dir (--site-dir)" if which == "site" else "work_dir"
    with pytest.raises(
        ValueError,
        match=rf"^{re.escape(option)} {re.escape(str(link))} \(through the link {re.escape(str(link))}, to "
        rf"{re.escape(str(web))}\) holds files robeval did not write .*pass a new or empty folder, or remove the link\.$",
    ):
        site.build_site("smoke", only="07")
    assert _files(web) == before and link.is_symlink()


def test_a_link_anywhere_below_build_is_followed_only_into_a_marked_or_empty_folder(tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    web = tmp_path / "web"
    before = _user_folder(web)
    (build / "site-src").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere" / "smoke").mkdir(parents=True)
    (tmp_path / "elsewhere" / "smoke" / "mine.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"^work_dir .*smoke \(through the link .*site-src, to .*elsewhere\) holds"):
        check_owned_folder(build / "site-src" / "smoke", "work_dir", ".m", ours=build)
    assert (tmp_path / "elsewhere" / "smoke" / "mine.txt").read_text() == "mine"
    (build / "site").symlink_to(web)
    with pytest.raises(ValueError, match="holds files robeval did not write"):
        check_owned_folder(build / "site", "--x", ".m", ours=build)
    assert _files(web) == before
    # a link to an empty folder, or to one robeval marked on an earlier build, is taken (and marked)
    (build / "site").unlink()
    (tmp_path / "empty").mkdir()
    (build / "site").symlink_to(tmp_path / "empty")
    assert check_owned_folder(build / "site", "--x", ".m", ours=build) == build / "site"
    (tmp_path / "empty" / "page.html").write_text("an earlier build")
    assert check_owned_folder(build / "site", "--x", ".m", ours=build) == build / "site"
    # the default itself, a real folder under build/, is still robeval's without a marker
    (build / "real").mkdir()
    (build / "real" / "old.html").write_text("old")
    assert check_owned_folder(build / "real", "--x", ".m", ours=build, mark=False) == build / "real"
    # a folder outside the folder named as robeval's own is not taken as robeval's
    with pytest.raises(ValueError, match="holds files robeval did not write"):
        check_owned_folder(web, "--x", ".m", ours=build)


def test_owned_folder_is_an_empty_folder_or_one_carrying_its_marker_as_a_regular_file(tmp_path):
    # the rule check_owned_folder and benchmarks/cpu_chunks.py's part_folder share
    folder = tmp_path / "f"
    folder.mkdir()
    assert owned_folder(folder, ".m")
    (folder / "user.txt").write_text("mine")
    assert not owned_folder(folder, ".m")
    (folder / ".m").symlink_to(tmp_path / "elsewhere")
    assert not owned_folder(folder, ".m")  # a link named like the marker is not the marker
    (folder / ".m").unlink()
    mark_owned_folder(folder, ".m", "made by a test\n")
    assert owned_folder(folder, ".m") and (folder / ".m").read_text() == "made by a test\n"
