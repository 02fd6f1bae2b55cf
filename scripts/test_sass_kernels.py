#!/usr/bin/env python3
"""Tests of scripts/sass-kernels.py on synthetic nvdisasm dumps whose
verdicts are known by construction (standard library only)."""
import importlib.util
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("sass_kernels", os.path.join(HERE, "sass-kernels.py"))
sk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sk)


def dump(kernels, first_label):
    """An nvdisasm-like file: one text section a kernel, its branch labels
    numbered from `first_label` across the file, as nvdisasm numbers them."""
    out, n = ["\t.headerflags @\"EF_CUDA_SM90\"\n"], first_label
    for name, body in kernels:
        out.append('\t.section\t.text.%s,"ax",@progbits\n' % name)
        out.append("%s:\n" % name)
        for insn in body:
            if insn == "LOOP":
                out.append(".L_x_%d:\n" % n)
                out.append("        /*0000*/                   BRA `(.L_x_%d) ;\n" % n)
                n += 1
            else:
                out.append("        /*0000*/                   %s ;\n" % insn)
    out.append('\t.section\t.nv.shared.x,"aw",@nobits\n')
    out.append("\t.zero 16\n")
    return "".join(out)


class SassKernels(unittest.TestCase):
    def test_labels_renumbered_within_a_kernel(self):
        body = ["IMAD R1, R2, R3, RZ", "LOOP", "EXIT"]
        a = sk.kernels(dump([("tr_a_bf16", body), ("tr_b_f32", body)], 7))
        b = sk.kernels(dump([("tr_b_f32", body), ("tr_a_bf16", body)], 4000))
        lines, ok = sk.compare(a, b, re.compile(""))
        self.assertTrue(ok, lines)
        self.assertEqual([l.split()[1] for l in lines], ["same", "same"])

    def test_a_changed_kernel_fails_only_where_required(self):
        a = sk.kernels(dump([("tr_a_bf16", ["HSET2 R1", "EXIT"]), ("tr_a_f32", ["EXIT"])], 0))
        b = sk.kernels(dump([("tr_a_bf16", ["ISETP P0", "EXIT"]), ("tr_a_f32", ["EXIT"])], 0))
        lines, ok = sk.compare(a, b, re.compile("f32"))
        self.assertTrue(ok, lines)
        self.assertIn("differs (not required)", lines[0])
        lines, ok = sk.compare(a, b, re.compile("bf16"))
        self.assertFalse(ok, lines)

    def test_a_missing_kernel_is_reported(self):
        a = sk.kernels(dump([("tr_a_bf16", ["EXIT"]), ("tr_x", ["EXIT"])], 0))
        b = sk.kernels(dump([("tr_a_bf16", ["EXIT"])], 0))
        lines, ok = sk.compare(a, b, re.compile(""))
        self.assertFalse(ok)
        self.assertIn("only in A", lines[1])

    def test_data_sections_are_not_kernels(self):
        a = sk.kernels(dump([("tr_a_bf16", ["EXIT"])], 0))
        self.assertEqual(list(a), ["tr_a_bf16"])
        self.assertNotIn(".zero", a["tr_a_bf16"])


if __name__ == "__main__":
    unittest.main()
