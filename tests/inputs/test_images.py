"""Image checks at load time: whole decode, truncation, pixel limit, modes, 16-bit conversion."""

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFile

from abductive_tasks.inputs import images
from abductive_tasks.inputs.loading import DataError


@pytest.fixture(autouse=True)
def fresh_cache():
    images.clear_cache()
    yield
    images.clear_cache()


def _png(path: Path, array: np.ndarray) -> Path:
    Image.fromarray(array).save(path)
    return path


def test_a_truncated_image_is_refused_even_with_lmms_eval_leniency(tmp_path, monkeypatch):
    path = tmp_path / "cut.jpg"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(path, quality=95)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)  # what lmms-eval sets globally
    with pytest.raises(DataError, match=r"row 7: unusable image .*cut.jpg: .*truncated"):
        images.check_image(path, "row 7")
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True  # restored


def test_sixteen_bit_greyscale_is_scaled_not_clipped_to_white(tmp_path):
    path = _png(tmp_path / "deep.png", np.array([[0, 257 * 128, 65535]], dtype=np.uint16))
    assert Image.open(path).mode == "I;16"
    images.check_image(path, "row 1")
    assert [images.load_image(str(path)).getpixel((x, 0)) for x in range(3)] == [
        (0, 0, 0),
        (128, 128, 128),
        (255, 255, 255),
    ]


def test_an_image_over_the_pixel_limit_is_refused_with_the_variable_named(tmp_path, monkeypatch):
    path = _png(tmp_path / "big.png", np.zeros((100, 100, 3), dtype=np.uint8))
    monkeypatch.setenv("ABDUCTIVE_MAX_IMAGE_PIXELS", "9999")
    with pytest.raises(
        DataError,
        match=r"row 2: unusable image .*100x100 pixels is over the limit of 9999 \(ABDUCTIVE_MAX_IMAGE_PIXELS\)",
    ):
        images.check_image(path, "row 2")


def test_a_decompression_bomb_is_a_data_error(tmp_path, monkeypatch):
    path = _png(tmp_path / "bomb.png", np.zeros((200, 200), dtype=np.uint8))
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)  # PIL raises above 2x this
    with pytest.raises(DataError, match=r"row 3: unusable image .*bomb.png"):
        images.check_image(path, "row 3")


def test_a_float_image_has_no_faithful_rgb_and_is_refused(tmp_path):
    path = tmp_path / "float.tiff"
    Image.fromarray(np.zeros((4, 4), dtype=np.float32)).save(path)
    with pytest.raises(DataError, match=r"unsupported image mode F"):
        images.check_image(path, "row 4")


def test_checking_png_and_jpeg_decodes_nothing_and_use_decodes_once(tmp_path, decoded_files):
    png = _png(tmp_path / "ok.png", np.full((8, 8, 3), 200, dtype=np.uint8))
    jpeg = tmp_path / "ok.jpg"
    Image.fromarray(np.full((8, 8, 3), 90, dtype=np.uint8)).save(jpeg)
    assert images.check_image(png, "row 5") == str(png) and images.check_image(jpeg, "row 5") == str(jpeg)
    assert decoded_files == []
    first = images.load_image(str(png))
    assert images.load_image(str(png)) is first and first.mode == "RGB"
    assert decoded_files == [str(png)]


def test_other_formats_are_decoded_whole_at_check_so_use_is_a_hit(tmp_path, decoded_files):
    path = tmp_path / "ok.bmp"
    Image.fromarray(np.full((8, 8, 3), 200, dtype=np.uint8)).save(path)
    images.check_image(path, "row 6")
    images.load_image(str(path))
    assert decoded_files == [str(path)]


def test_a_png_cut_before_its_end_is_refused_and_a_damaged_one_when_decoded(tmp_path, decoded_files, monkeypatch):
    path = _png(tmp_path / "cut.png", np.random.default_rng(1).integers(0, 255, (64, 64, 3), dtype=np.uint8))
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match=r"row 8: unusable image .*cut.png: .*truncated"):  # no IEND: decoded to tell
        images.check_image(path, "row 8")
    path.write_bytes(whole[:100] + bytes([whole[100] ^ 1]) + whole[101:])  # one flipped bit in the pixel data
    decoded_files.clear()
    assert images.check_image(path, "row 8") == str(path) and decoded_files == []  # whole length: not decoded
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)  # what lmms-eval sets globally
    with pytest.raises(OSError, match="broken data stream"):
        images.load_image(str(path))  # strict at use too


def test_a_jpeg_with_bytes_after_its_end_marker_is_whole_without_decoding_and_a_cut_one_is_refused(
    tmp_path, decoded_files
):
    path = tmp_path / "padded.jpg"
    Image.fromarray(np.random.default_rng(2).integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(path, quality=95)
    whole = path.read_bytes()
    path.write_bytes(whole + b"\0\0trailer")
    assert images.check_image(path, "row 9") == str(path)
    assert decoded_files == []
    path.write_bytes(whole[: len(whole) // 2] + b"\0\0")  # cut in its scan data, then padded: no end marker
    with pytest.raises(DataError, match=r"row 9: unusable image .*padded.jpg: .*truncated"):
        images.check_image(path, "row 9")


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((3, 5, 3), dtype=np.uint8),  # RGB
        np.zeros((3, 5, 4), dtype=np.uint8),  # RGBA
        np.zeros((3, 5), dtype=np.uint8),  # L
        np.zeros((3, 5), dtype=np.uint16),  # I;16
        np.zeros((3, 5), dtype=bool),  # 1
    ],
)
def test_a_png_header_is_read_as_pil_reads_it_without_decoding(tmp_path, decoded_files, array):
    path = _png(tmp_path / "ok.png", array)
    with Image.open(path) as image:
        assert images._whole_png_header(str(path)) == (image.size, image.mode)
    assert images.check_image(path, "row 10") == str(path) and decoded_files == []


def test_a_png_with_a_damaged_header_is_left_to_pil_which_refuses_it(tmp_path):
    path = _png(tmp_path / "bad.png", np.zeros((4, 4, 3), dtype=np.uint8))
    whole = path.read_bytes()
    path.write_bytes(whole[:20] + bytes([whole[20] ^ 1]) + whole[21:])  # the height's first byte: the CRC fails
    assert images._whole_png_header(str(path)) is None
    with pytest.raises(DataError, match=r"row 11: unusable image .*bad.png"):
        images.check_image(path, "row 11")


@pytest.mark.parametrize("mode", ["RGB", "L", "CMYK"])
@pytest.mark.parametrize(
    "options", [{}, {"progressive": True}, {"exif": b"Exif\0\0" + bytes(60000), "icc_profile": bytes(9000)}]
)
def test_a_jpeg_header_is_read_as_pil_reads_it_without_decoding(tmp_path, decoded_files, mode, options):
    path = tmp_path / "ok.jpg"
    Image.new(mode, (7, 5)).save(path, **options)  # 69 kB of APP segments: the frame header is past the first read
    with Image.open(path) as image:
        expected = (image.size, image.mode)
    assert images._whole_jpeg_header(str(path)) in (expected, None)
    assert (images._whole_jpeg_header(str(path)) is None) == ("exif" in options)
    assert images.check_image(path, "row 12") == str(path) and decoded_files == []


def _gap_columns(widths: list[int]) -> list[int]:
    """The x of every column of the white gaps between panels of ``widths`` in a composite row."""
    columns, left = [], 0
    for width in widths[:-1]:
        left += width
        columns += range(left, left + images._GAP)
        left += images._GAP
    return columns


@pytest.mark.parametrize("width", [40, 59, 400])
def test_a_caption_stays_over_its_panel_on_small_and_large_panels(width):
    panels = [Image.new("RGB", (width, 50), "gray"), Image.new("RGB", (width, 50), "gray")]
    composite = images.labelled_row_of(panels, ["Effect image", "Option 4"])
    nominal = 12  # a tenth of the row height, at least 12 px
    strip_height = composite.height - 50
    assert strip_height == nominal + nominal // 2  # the strip keeps its height: the composite's size is unchanged
    strip = composite.crop((0, 0, composite.width, strip_height)).convert("L")
    assert all(strip.getpixel((x, y)) == 255 for x in _gap_columns([width, width]) for y in range(strip_height))
    for left in (0, width + images._GAP):  # each caption is drawn, dark on white, over its own panel
        assert strip.crop((left, 0, left + width, strip_height)).getextrema()[0] < 100


def test_the_caption_size_is_the_largest_at_which_every_caption_fits():
    labels = ["Cause image", "Option 1"]
    assert images._caption_size(102, [1024, 1024], labels) == 102  # a full-size MuCR pair: the nominal size
    size = images._caption_size(12, [45, 45], labels)
    assert size < 12
    assert (
        images._caption_font(size).getlength("Cause image")
        <= 45
        < images._caption_font(size + 1).getlength("Cause image")
    )
    assert images._caption_size(12, [5, 5], labels) == images._SMALLEST_CAPTION  # never below it
