/*
 * Prints one column of a table in a sweep file, one value per line, so the
 * Slurm test can compare a file with the plan: unsigned integers as 16 hex
 * digits (how sweep --dry-run --points prints point ids), signed integers
 * in decimal, fixed-length strings as they are. Only what that test needs: no floats, no
 * variable-length strings.
 *   h5column FILE.h5 /measurements point_id
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

int main(int argc, char **argv)
{
	hid_t file = H5I_INVALID_HID, dset = H5I_INVALID_HID, space = H5I_INVALID_HID;
	hid_t ftype = H5I_INVALID_HID, member = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
	hid_t one = H5I_INVALID_HID;
	unsigned char *buf = NULL;
	hsize_t rows = 0;
	int rc = EXIT_FAILURE;

	/* --live: read a file a sweep is writing, as a SWMR reader without
	 * HDF5's lock: the rows flushed so far */
	int live = argc == 5 && strcmp(argv[1], "--live") == 0;
	if (live) {
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s [--live] FILE.h5 DATASET COLUMN\n", argv[0]);
		return 2;
	}
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (live)
		H5Pset_file_locking(fapl, 0, 1);
	file = H5Fopen(argv[1], live ? H5F_ACC_RDONLY | H5F_ACC_SWMR_READ : H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (file < 0) {
		fprintf(stderr, "h5column: cannot open %s as HDF5\n", argv[1]);
		goto out;
	}
	dset = H5Dopen2(file, argv[2], H5P_DEFAULT);
	ftype = dset < 0 ? H5I_INVALID_HID : H5Dget_type(dset);
	space = dset < 0 ? H5I_INVALID_HID : H5Dget_space(dset);
	if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_COMPOUND ||
	    H5Sget_simple_extent_dims(space, &rows, NULL) != 1) {
		fprintf(stderr, "h5column: %s in %s is not a table\n", argv[2], argv[1]);
		goto out;
	}
	int idx = H5Tget_member_index(ftype, argv[3]);
	member = idx < 0 ? H5I_INVALID_HID : H5Tget_member_type(ftype, (unsigned)idx);
	if (member < 0) {
		fprintf(stderr, "h5column: %s has no column %s\n", argv[2], argv[3]);
		goto out;
	}
	H5T_class_t cls = H5Tget_class(member);
	int is_signed = cls == H5T_INTEGER && H5Tget_sign(member) == H5T_SGN_2;
	if (cls == H5T_INTEGER)
		mtype = H5Tcopy(is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
	else if (cls == H5T_STRING && !H5Tis_variable_str(member))
		mtype = H5Tcopy(member);
	if (mtype < 0) {
		fprintf(stderr, "h5column: column %s is neither an integer nor a fixed string\n",
			argv[3]);
		goto out;
	}
	size_t size = H5Tget_size(mtype);
	one = H5Tcreate(H5T_COMPOUND, size);
	buf = calloc(rows ? rows : 1, size);
	if (one < 0 || !buf || H5Tinsert(one, argv[3], 0, mtype) < 0 ||
	    (rows && H5Dread(dset, one, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)) {
		fprintf(stderr, "h5column: cannot read %s %s from %s\n", argv[2], argv[3], argv[1]);
		goto out;
	}
	for (hsize_t r = 0; r < rows; r++) {
		const unsigned char *v = buf + r * size;
		if (cls == H5T_STRING) {
			printf("%.*s\n", (int)size, (const char *)v);
		} else if (is_signed) {
			int64_t x;
			memcpy(&x, v, sizeof x);
			printf("%" PRId64 "\n", x);
		} else {
			uint64_t x;
			memcpy(&x, v, sizeof x);
			printf("%016" PRIx64 "\n", x);
		}
	}
	rc = fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
out:
	free(buf);
	if (one >= 0)
		H5Tclose(one);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (member >= 0)
		H5Tclose(member);
	if (ftype >= 0)
		H5Tclose(ftype);
	if (space >= 0)
		H5Sclose(space);
	if (dset >= 0)
		H5Dclose(dset);
	if (file >= 0)
		H5Fclose(file);
	return rc;
}
