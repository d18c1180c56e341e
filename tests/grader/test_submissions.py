"""How class grading reads a submission, on small made-up ones (nothing is compiled): a student's name from the
entry, archives unpacked only inside their folder, links and odd files refused, the lab folders found."""
import io
import os
import tarfile
import zipfile

import pytest

from grader import classgrade
from grader.classgrade import Rejected

LAB = classgrade.LABS[0]


@pytest.mark.parametrize("entry, name", [
    ("ann", "ann"), ("ann smith", "ann_smith"), ("..hidden", "hidden"), ("x/y\n", "y_"), ("é", "_"), (".", "_"),
])
def test_a_student_name_is_safe_as_a_folder(tmp_path, entry, name):
    assert classgrade.student_name(os.path.join(str(tmp_path), entry)) == name


def test_an_archive_name_loses_its_suffix_only_for_a_file(tmp_path):
    (tmp_path / "bob.zip").write_bytes(b"")
    (tmp_path / "carol.tar.gz").mkdir()
    assert classgrade.student_name(str(tmp_path / "bob.zip")) == "bob"
    assert classgrade.student_name(str(tmp_path / "carol.tar.gz")) == "carol.tar.gz"


def test_a_shown_name_is_printable_and_short():
    assert classgrade.shown_name("a\x1bb") == "a\\x1bb"
    assert classgrade.shown_name(os.fsdecode(b"bad\xff")) == "bad\\xff"
    assert len(classgrade.shown_name("x" * 500)) == 100


def test_a_student_named_like_the_grader_s_files_gets_another_folder():
    assert classgrade.output_folder("/out", "Gradebook.csv") == "/out/student-Gradebook.csv"
    assert classgrade.output_folder("/out", "ann") == "/out/ann"


@pytest.mark.parametrize("name, safe", [
    ("lab1-naive/kernel.cu", True), ("a/../b", False), ("../x", False), ("/etc/passwd", False),
    ("\\\\server\\x", False), ("C:/x", False), ("..\\x", False), ("a..b/c", True),
])
def test_member_names_stay_inside(name, safe):
    assert classgrade.safe_member_name(name) == safe


def zip_of(path, members):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members:
            z.writestr(name, data)
    return str(path)


def test_a_zip_unpacks_into_its_folder(tmp_path):
    archive = zip_of(tmp_path / "ann.zip", [("%s/kernel.cu" % LAB, "// mine\n")])
    classgrade.unpack(archive, str(tmp_path / "out"))
    assert (tmp_path / "out" / LAB / "kernel.cu").read_text() == "// mine\n"


@pytest.mark.parametrize("members, status, why", [
    ([("../escape.cu", "x")], "unsafe-archive", "points outside it"),
    ([("/abs.cu", "x")], "unsafe-archive", "points outside it"),
    ([("a" * 1100 + ".cu", "x")], "unsafe-archive", "longer than 1024 bytes"),
    ([("f%d" % i, "") for i in range(classgrade.ARCHIVE_MAX_FILES + 1)], "bad-archive", "more than"),
])
def test_a_zip_that_would_land_outside_is_refused_before_anything_is_written(tmp_path, members, status, why):
    archive = zip_of(tmp_path / "bad.zip", members + [("ok.cu", "x")])
    with pytest.raises(Rejected, match=why) as e:
        classgrade.unpack(archive, str(tmp_path / "out"))
    assert e.value.status == status
    assert not (tmp_path / "out" / "ok.cu").exists() and not (tmp_path / "escape.cu").exists()


def test_a_zip_with_a_link_is_refused(tmp_path):
    path = tmp_path / "link.zip"
    with zipfile.ZipFile(path, "w") as z:
        info = zipfile.ZipInfo("%s/kernel.cu" % LAB)
        info.external_attr = (0o120777 << 16)  # a symbolic link
        z.writestr(info, "../../../solutions/%s/kernel.cu" % LAB)
    with pytest.raises(Rejected, match="not a plain file"):
        classgrade.unpack(str(path), str(tmp_path / "out"))


def test_what_is_not_an_archive_is_a_bad_archive(tmp_path):
    for name in ("x.zip", "x.tar.gz"):
        (tmp_path / name).write_bytes(b"not an archive")
        with pytest.raises(Rejected) as e:
            classgrade.unpack(str(tmp_path / name), str(tmp_path / "out"))
        assert e.value.status == "bad-archive"


def tar_of(path, members):
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    return str(path)


def tar_file(name, data=b"x"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def test_a_tar_gz_unpacks_and_its_links_and_devices_are_refused(tmp_path):
    good = tar_of(tmp_path / "ann.tar.gz", [tar_file("%s/kernel.cu" % LAB, b"// mine\n")])
    classgrade.unpack(good, str(tmp_path / "out"))
    assert (tmp_path / "out" / LAB / "kernel.cu").read_bytes() == b"// mine\n"
    for kind in (tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE):
        info = tarfile.TarInfo("%s/kernel.cu" % LAB)
        info.type, info.linkname = kind, "/etc/passwd"
        bad = tar_of(tmp_path / ("bad%s.tar.gz" % kind.decode()), [(info, None)])
        with pytest.raises(Rejected, match="not a plain file"):
            classgrade.unpack(bad, str(tmp_path / ("out" + kind.decode())))


def test_a_tar_gz_with_a_huge_name_header_is_refused_before_tarfile_reads_it(tmp_path):
    archive = tar_of(tmp_path / "long.tar.gz", [tar_file("d/" * 3000 + "k.cu")])  # a 6 KB GNU long-name header
    with pytest.raises(Rejected, match="byte name or extended header"):
        classgrade.unpack(archive, str(tmp_path / "out"))


def test_a_folder_with_a_link_or_a_fifo_is_refused(tmp_path):
    (tmp_path / "s" / LAB).mkdir(parents=True)
    os.symlink("/etc/passwd", tmp_path / "s" / LAB / "kernel.cu")
    with pytest.raises(Rejected, match="symbolic link"):
        classgrade.refuse_links(str(tmp_path / "s"))
    (tmp_path / "f").mkdir()
    os.mkfifo(tmp_path / "f" / "pipe")
    with pytest.raises(Rejected, match="not a plain file or folder"):
        classgrade.refuse_links(str(tmp_path / "f"))


def test_the_lab_folders_are_found_at_the_top_or_in_one_folder(tmp_path):
    (tmp_path / "a" / LAB).mkdir(parents=True)
    assert classgrade.locate_labs(str(tmp_path / "a"))[0] == {LAB: str(tmp_path / "a" / LAB / "kernel.cu")}
    (tmp_path / "b" / "labs" / LAB).mkdir(parents=True)
    (tmp_path / "b" / "__MACOSX").mkdir()
    assert list(classgrade.locate_labs(str(tmp_path / "b"))[0]) == [LAB]
    (tmp_path / "c").mkdir()
    with pytest.raises(Rejected, match="empty"):
        classgrade.locate_labs(str(tmp_path / "c"))
    (tmp_path / "d" / "mine").mkdir(parents=True)
    with pytest.raises(Rejected, match="no lab folder"):
        classgrade.locate_labs(str(tmp_path / "d"))


def test_an_encrypted_zip_is_a_bad_archive(tmp_path):
    archive = zip_of(tmp_path / "locked.zip", [("%s/kernel.cu" % LAB, "// mine\n")])
    data = bytearray(open(archive, "rb").read())
    # the general-purpose flag's bit 0 (encrypted), in the local header and the central directory
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        data[at + offset] |= 0x01
    open(archive, "wb").write(bytes(data))
    with pytest.raises(Rejected, match="encrypted") as e:
        classgrade.unpack(archive, str(tmp_path / "out"))
    assert e.value.status == "bad-archive"


@pytest.mark.parametrize("name", [".", "lab1-naive/."])
def test_a_file_named_dot_is_a_bad_archive_whose_reason_shows_no_path_of_the_grader(tmp_path, name):
    archive = zip_of(tmp_path / "dot.zip", [(name, "x"), ("%s/kernel.cu" % LAB, "// mine\n")])
    with pytest.raises(Rejected) as e:
        classgrade.unpack(archive, str(tmp_path / "out"))
    assert e.value.status == "bad-archive" and str(tmp_path) not in e.value.reason and "/" not in \
        e.value.reason.replace("'%s'" % name, ""), e.value.reason


def test_an_error_text_loses_the_grading_machines_paths():
    assert classgrade.without_paths("[Errno 21] Is a directory: '/srv/grade/.work/unpacked/.'") == \
        "[Errno 21] Is a directory: '.'"
    assert classgrade.without_paths("cannot open /tmp/x/lab3-boundary/kernel.cu") == "cannot open kernel.cu"


def test_a_zip_of_400000_entries_is_refused_from_its_end_record(tmp_path, monkeypatch):
    # the central directory is never read: zipfile is not even asked
    archive = zip_of(tmp_path / "many.zip", [("f%d" % i, "") for i in range(3)])
    data = bytearray(open(archive, "rb").read())
    at = data.rfind(b"PK\x05\x06")
    data[at + 8:at + 12] = (0xFFFF).to_bytes(2, "little") * 2  # entries on this disk, and in all
    open(archive, "wb").write(bytes(data))
    monkeypatch.setattr(classgrade.zipfile, "ZipFile", lambda *a, **k: pytest.fail("the zip was opened"))
    with pytest.raises(Rejected, match="more than %d files" % classgrade.ARCHIVE_MAX_FILES) as e:
        classgrade.unpack(archive, str(tmp_path / "out"))
    assert e.value.status == "bad-archive"


@pytest.mark.parametrize("names", [["%s/kernel.cu" % LAB, "%s/kernel.cu" % LAB],
                                   ["%s/kernel.cu" % LAB, "%s/./kernel.cu" % LAB],
                                   ["%s/Kernel.cu" % LAB, "%s/kernel.cu" % LAB]])
def test_a_member_twice_is_a_bad_archive(tmp_path, names):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
        archive = zip_of(tmp_path / "twice.zip", [(n, "// %d\n" % i) for i, n in enumerate(names)])
    with pytest.raises(Rejected, match="in the archive twice") as e:
        classgrade.unpack(archive, str(tmp_path / "out"))
    assert e.value.status == "bad-archive" and not (tmp_path / "out" / LAB).exists()


def lab_tree(root, labs, under=""):
    for lab in labs:
        folder = os.path.join(str(root), under, lab)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "kernel.cu"), "w") as f:
            f.write("// %s\n" % lab)


OTHER = classgrade.LABS[2]


@pytest.mark.parametrize("under", ["", "labs", "course-main", "course-main/labs"])
def test_the_labs_are_found_in_a_folder_a_copy_of_the_course_or_a_repositorys_archive(tmp_path, under):
    lab_tree(tmp_path, [LAB, OTHER], under)
    found, left_out = classgrade.locate_labs(str(tmp_path))
    assert sorted(found) == sorted([LAB, OTHER]) and left_out == []
    assert found[LAB] == os.path.join(str(tmp_path), under, LAB, "kernel.cu")


def test_a_one_lab_assignment_grades_its_lab_and_lists_the_others(tmp_path):
    lab_tree(tmp_path, [LAB, OTHER], "course-main/labs")
    found, left_out = classgrade.locate_labs(str(tmp_path), only=OTHER)
    assert found == {OTHER: os.path.join(str(tmp_path), "course-main", "labs", OTHER, "kernel.cu")}
    assert left_out == [LAB]


@pytest.mark.parametrize("under", ["", "mine"])
def test_a_lone_kernel_is_the_assignments_lab(tmp_path, under):
    os.makedirs(tmp_path / under, exist_ok=True)
    (tmp_path / under / "kernel.cu").write_text("// lone\n")
    found, left_out = classgrade.locate_labs(str(tmp_path), only=OTHER)
    assert found == {OTHER: os.path.join(str(tmp_path), under, "kernel.cu")} and left_out == []
    with pytest.raises(Rejected, match="no lab folder") as e:  # an all-labs assignment cannot tell which lab
        classgrade.locate_labs(str(tmp_path))
    assert e.value.status == "bad-layout"


def test_a_one_lab_assignment_without_its_lab_says_which_it_wanted(tmp_path):
    lab_tree(tmp_path, [LAB])
    with pytest.raises(Rejected, match="no lab folder \\(%s\\) and no lone kernel.cu" % OTHER):
        classgrade.locate_labs(str(tmp_path), only=OTHER)


def test_planning_a_class_with_a_sparse_4_gib_file_reads_nothing_whole(tmp_path):
    """grade-all's plan, in a process that may not map 1 GiB: the folder with a 4 GiB (sparse) file beside its
    kernel is too-large, with its size, and the honest student beside it is planned for grading."""
    import subprocess
    import sys
    lab_tree(tmp_path / "class" / "honest", [LAB])
    lab_tree(tmp_path / "class" / "huge", [LAB])
    with open(tmp_path / "class" / "huge" / LAB / "data.bin", "wb") as f:
        f.truncate(4 << 30)
    script = ("import json, sys; from grader import classgrade\n"
              "todo, kept = classgrade.plan(sys.argv[1:], sys.argv[1] + '-out', 'emu')\n"
              "print(json.dumps({'todo': [s for _, s, _ in todo], 'kept': kept}))\n")
    entries = [str(tmp_path / "class" / n) for n in ("honest", "huge")]
    proc = subprocess.run(["prlimit", "--as=%d" % (1 << 30), "--", sys.executable, "-c", script] + entries,
                          capture_output=True, text=True, cwd=classgrade.ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json
    planned = json.loads(proc.stdout)
    assert planned["todo"] == ["honest"] and [(k["student"], k["status"]) for k in planned["kept"]] == \
        [("huge", "too-large")] and "4096.0 MiB" in planned["kept"][0]["reason"], planned
