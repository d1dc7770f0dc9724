"""Which parser the registry picks for every file of the corpus (tests/corpus), written out by name.

A new corpus file fails `test_every_corpus_file_is_listed` until it is added here with the parser it
must get (None: a format StormScope refuses with a clear "not supported" message).
"""

import pytest

from parsers.registry import UnknownFormat, detect
from tests.conftest import CORPUS

EXPECTED = {
    "clock/vda_iostat-dxt-ISO_TZ-America-New_York.txt": 'iostat-text',
    "clock/vda_iostat-dxt-ISO_TZ-UTC.txt": 'iostat-text',
    "crosscheck/loop0_randread-direct_fio.json": 'fio-json',
    "crosscheck/loop0_randread-direct_iostat.txt": 'iostat-text',
    "crosscheck/loop0_write-buffered_fio.json": 'fio-json',
    "crosscheck/loop0_write-buffered_iostat.txt": 'iostat-text',
    "crosscheck/vda_randread-direct_fio.json": 'fio-json',
    "crosscheck/vda_randread-direct_iostat.txt": 'iostat-text',
    "crosscheck/vda_write-buffered_fio.json": 'fio-json',
    "crosscheck/vda_write-buffered_iostat.txt": 'iostat-text',
    "diskspd/pkb_diskspd_result.xml": 'diskspd-xml',
    "diskspd/vc_diskspd-2.0.21_write8k_32threads.txt": 'diskspd-text',
    "diskspd/vc_diskspd-2.0.21a_rw70-30_L_D.xml": 'diskspd-xml',
    "diskspd/vc_diskspd-2.0_randrw70-30_1thread.txt": 'diskspd-text',
    "diskspd/vc_diskspd-2.0_write8k_5targets_115threads.txt": 'diskspd-text',
    "diskspd/vc_diskspd-2.2.0_write4k_4threads.txt": 'diskspd-text',
    "diskspd/vc_diskspd-2.2.0_write4k_800threads_trimmed.txt": 'diskspd-text',
    "fio/BlizzardDiskMark_fio-3.39-jsonplus-macos.json": 'fio-json',
    "fio/fio-plot_fio-3.1_randread-1-1.json": 'fio-json',
    "fio/fio-plot_random-read-depth-1_bw.1.log": 'fio-log',
    "fio/fio-plot_random-read-depth-1_lat.1.log": 'fio-log',
    "fio/pkb_fio-2.1.4-parser-sample-result.json": 'fio-json',
    "fio/pkb_fio-2.17-hist-run.json": 'fio-json',
    "fio/pkb_fio_clat_hist.1.log": 'fio-hist-log',
    "fio/vm_fio-3.33_randread-coarse2_clat_hist.1.log": 'fio-hist-log',
    "fio/vm_fio-3.33_randread-per-io_bw.1.log": 'fio-log',
    "fio/vm_fio-3.33_randread-per-io_lat.1.log": 'fio-log',
    "fio/vm_fio-3.33_randrw-avg500_bw.1.log": 'fio-log',
    "fio/vm_fio-3.33_randrw-avg500_clat.1.log": 'fio-log',
    "fio/vm_fio-3.33_randrw-avg500_clat_hist.1.log": 'fio-hist-log',
    "fio/vm_fio-3.33_randrw-avg500_iops.1.log": 'fio-log',
    "fio/vm_fio-3.33_randrw-avg500_lat.1.log": 'fio-log',
    "fio/vm_fio-3.33_randrw-avg500_slat.1.log": 'fio-log',  # read as a fio log, refused: submission latency
    "fio/vm_fio-3.33_randwrite-epoch_clat_hist.1.log": 'fio-hist-log',
    "fio/vm_fio-3.33_randwrite-epoch_iops.1.log": 'fio-log',
    "getcounter/derived_ps5.1-en-US_countersamples_from_typeperf-si10_GORANS2.csv": 'getcounter-csv',
    "getcounter/derived_ps7-de-DE_select-usculture_from_typeperf-si10_GORANS2.csv": 'getcounter-csv',
    "hdparm/snippet_hdparm-Tt_xvda_modern.txt": 'hdparm-text',
    "hdparm/snippet_hdparm-tT_io-error.txt": 'hdparm-text',
    "hdparm/snippet_hdparm-t_lvm-path.txt": 'hdparm-text',
    "hdparm/snippet_hdparm-t_repeated-runs_with-prompts.txt": 'hdparm-text',
    "hdparm/snippet_lkml2003_hdparm-tT_old-format.txt": 'hdparm-text',
    "iomark/IOMARK_FINDINGS.md": None,
    "knee/loop0_fio-3.33_randread-4k_qd001.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd002.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd003.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd004.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd006.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd008.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd012.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd016.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd024.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd032.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd048.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd064.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd096.json": 'fio-json',
    "knee/loop0_fio-3.33_randread-4k_qd128.json": 'fio-json',
    "knee/loop0_randread-4k_qd-steps_iostat-dxt.txt": 'iostat-text',
    "iostat/iostat-tool_sample_iostat.txt": 'iostat-text',
    "iostat/iostat-tool_sample_iostat_killo.txt": 'iostat-text',
    "iostat/iostat-tool_sample_iostat_sector.txt": 'iostat-text',
    "iostat/iostat-tool_sample_iostat_small.txt": 'iostat-text',
    "iostat/iostat-tool_sample_iostat_without_cpu.txt": 'iostat-text',
    "iostat/jc_centos-7.7_iostat-1.txt": 'iostat-text',
    "iostat/jc_centos-7.7_iostat-m.txt": 'iostat-text',
    "iostat/jc_centos-7.7_iostat-mx.txt": 'iostat-text',
    "iostat/jc_centos-7.7_iostat-x.txt": 'iostat-text',
    "iostat/jc_centos-7.7_iostat.txt": 'iostat-text',
    "iostat/jc_ubuntu-18.04_iostat-1.txt": 'iostat-text',
    "iostat/jc_ubuntu-18.04_iostat-m.txt": 'iostat-text',
    "iostat/jc_ubuntu-18.04_iostat-mx.txt": 'iostat-text',
    "iostat/jc_ubuntu-18.04_iostat-x.txt": 'iostat-text',
    "iostat/jc_ubuntu-18.04_iostat.txt": 'iostat-text',
    "iostat/jc_ubuntu-20.10_iostat-m.txt": 'iostat-text',
    "iostat/jc_ubuntu-20.10_iostat-x.txt": 'iostat-text',
    "iostat/jc_ubuntu-20.10_iostat.txt": 'iostat-text',
    "iostat/pkb_iostat_output.json": 'iostat-json',
    "iostat/snippet_decimal-comma_iostat-xdmz_ubuntu16.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-0.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-ALL.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-Gz.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-N.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-compact.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-ct.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-dec.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-ev.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-f-alt-pALL-ms.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-foo.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-g-JSON.txt": 'iostat-json',
    "iostat/sysstat-tests_iostat-g.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-gH.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-gpy.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-h.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-jID.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-kz.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-list.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-mz.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-p-ALL.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-p-cciss.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-p-sda.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-pretty.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-s.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-sigint.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x-0.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x-ALL-flush.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x-ALL-p-ALL.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x-ALL.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x-list.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x-p-ALL-JSON.txt": 'iostat-json',
    "iostat/sysstat-tests_iostat-x-p-ALL.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-x_2019-cbe5da01.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-xs.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat-ym.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat.txt": 'iostat-text',
    "iostat/sysstat-tests_iostat_2019-cbe5da01.txt": 'iostat-text',
    "iostat/vm_sysstat-12.6.1_iostat-dx-pretty.txt": 'iostat-text',
    "iostat/vm_sysstat-12.6.1_iostat-human-x-t.txt": 'iostat-text',
    "iostat/vm_sysstat-12.6.1_iostat-x-pretty-t-ISO.txt": 'iostat-text',
    "iostat-other/datadog-unix-agent_aix-iostat-Dsal.txt": None,  # refused: AIX iostat, import nmon instead
    "iostat-other/jc_zpool-iostat-v.txt": 'zpool-iostat',
    "iostat-other/jc_zpool-iostat.txt": 'zpool-iostat',
    "iostat-other/snippet_esdc-docs_illumos_iostat-xzn.txt": 'iostat-illumos',
    "iostat-other/snippet_esdc-docs_zpool-iostat-v_raidz1.txt": 'zpool-iostat',
    "iostat-other/snippet_illumos_iostat-xzn_multi.txt": 'iostat-illumos',
    "iostat-other/snippet_macos_iostat-w1-disk0.txt": 'iostat-macos',
    "iostat-other/snippet_smartos_iostat-xzn.txt": 'iostat-illumos',
    "iostat-other/zfs-fuse-0.7.0_zpool-iostat-Tu_two-pools.txt": 'zpool-iostat',
    "iostat-other/zfs-fuse-0.7.0_zpool-iostat-v-Td_mirrors-log-cache.txt": 'zpool-iostat',
    "iostat-other/zfs-fuse-0.7.0_zpool-iostat_one-pool.txt": 'zpool-iostat',
    "iozone/iozone-renderer_iozone-R-report.txt": 'iozone-text',
    "iozone/iozone-results-comparator_ext2_1.iozone.txt": 'iozone-text',
    "iozone/iozone2csv_iozone.out.txt": 'iozone-text',
    "iozone/snippet_lkml-iommu_iozone-t12-plus-u.txt": 'iozone-text',
    "iozone/snippet_ubuntuforums_iozone-throughput-l5-u5-R.txt": 'iozone-text',
    "nmon/nmon2influxdb_aixlpar.nmon": 'nmon-csv',
    "nmon/nmon2influxdb_linux_150818_1024.nmon": 'nmon-csv',
    "nmon/snippet_atsd-doc_aix-topas_nmon-snapshot-T0009.nmon.txt": 'nmon-csv',  # read as nmon, refused: an excerpt
    "nmon/vm_nmon-16n_disk-list-grows.nmon": 'nmon-csv',
    "nmon/vm_nmon-16n_loop-partitions_l3-split_D.nmon": 'nmon-csv',
    "perfmon/derived_de-DE_cp1252_from_typeperf-si10_GORANS2.csv": 'perfmon-csv',
    "perfmon/derived_fr-FR_from_typeperf-si10_GORANS2.csv": 'perfmon-csv',
    "perfmon/snippet_preparePerfLog-pod_perfmon-csv_PhysicalDisk.csv": 'perfmon-csv',
    "perfmon/snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv": 'perfmon-csv',
    "replay/storm_fast_replay_startdelay-linear_a.fio": None,  # a fio job file StormScope wrote: not a trace
    "replay/storm_fast_replay_startdelay-linear_a_fio.json": 'fio-json',
    "replay/storm_fast_replay_startdelay-linear_a_iostat-dxt.txt": 'iostat-text',
    "replay/storm_fast_replay_startdelay-linear_b.fio": None,  # a fio job file StormScope wrote: not a trace
    "replay/storm_fast_replay_startdelay-linear_b_iostat-dxt.txt": 'iostat-text',
    "replay/storm_fast_replay_stonewall-linear_a.fio": None,  # a fio job file StormScope wrote: not a trace
    "replay/storm_fast_replay_stonewall-linear_a_iostat-dxt.txt": 'iostat-text',
    "replay/storm_fast_replay_stonewall-linear_b.fio": None,  # a fio job file StormScope wrote: not a trace
    "replay/storm_fast_replay_stonewall-linear_b_iostat-dxt.txt": 'iostat-text',
    "sar/ksar_hpux-sar.txt": 'sar-text',
    "sar/ksar_sar-10.1.5.txt": 'sar-text',
    "sar/ksar_sar-11.6.1-full-output.txt": 'sar-text',
    "sar/ksar_sar-AIX-7.2_EXCERPT_header+disk.txt": 'sar-text',
    "sar/ksar_sar-Solaris-11.3.txt": 'sar-text',
    "sar/ksar_testSolaris10.txt": 'sar-text',
    "sar/pkb_sar_output.txt": 'sar-text',  # read as sar, refused: no disk report
    "sar/snippet_zh_CN_sar-b.txt": 'sar-text',
    "sar/sysstat-tests_sadf-d.txt": 'sadf-d',
    "sar/sysstat-tests_sar-cd.txt": 'sar-text',  # read as sar, refused: no disk report
    "sar/sysstat-tests_sar-dev.txt": 'sar-text',
    "sar/sysstat-tests_sar-jID.txt": 'sar-text',
    "sar/sysstat-tests_sar-pretty.txt": 'sar-text',
    "sar/sysstat-tests_sar-z.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sa23": None,  # binary saDD: refused with the sadf command
    "sar/vm_sysstat-12.6.1_sadf-d_b-d-p.txt": 'sadf-d',
    "sar/vm_sysstat-12.6.1_sadf-d_u.txt": 'sadf-d',  # read as sar, refused: no disk report
    "sar/vm_sysstat-12.6.1_sadf-dh_d-p.txt": 'sadf-d',
    "sar/vm_sysstat-12.6.1_sadf-j_d-p.json": None,  # sadf -j, -x, -p: refused with the sadf -d command
    "sar/vm_sysstat-12.6.1_sadf-p_d-p.txt": None,
    "sar/vm_sysstat-12.6.1_sadf-x_d-p.xml": None,
    "sar/vm_sysstat-12.6.1_sar-A.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-b-d-p_live.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-b.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-d-p_de_DE.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-d-p_en_US-12h_midnight.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-d-p_ko_KR.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-d-p_restart.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-d-p_zh_CN.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-d_DEV-first.txt": 'sar-text',
    "sar/vm_sysstat-12.6.1_sar-dh-p_human.txt": 'sar-text',
    "vscsistats/vscsiStats-helper_sample_vscsiStats.csv": 'vscsistats-csv',}


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_the_registry_picks_the_expected_parser(rel):
    path = CORPUS / rel
    expected = EXPECTED[rel]
    if expected is None:
        with pytest.raises(UnknownFormat):
            detect(str(path))
    else:
        assert detect(str(path)).id == expected


def test_every_corpus_file_is_listed():
    found = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*") if p.is_file()
             and p.name not in ("MANIFEST.md", "SHA256SUMS")}  # the provenance files beside the corpus
    assert found == set(EXPECTED), f"unlisted: {sorted(found - set(EXPECTED))}, gone: {sorted(set(EXPECTED) - found)}"
