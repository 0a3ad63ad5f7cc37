"""tests/vtk_read.py: VTKHDF files read as ParaView reads them, with VTK's vtkHDFReader, for
tests/vis_test.sh."""
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def read(name):
    """The vtkUnstructuredGrid of file name; the reader must accept the file."""
    r = vtk.vtkHDFReader()
    assert r.CanReadFile(name) == 1, name
    r.SetFileName(name)
    r.Update()
    g = r.GetOutput()
    assert g.IsA("vtkUnstructuredGrid"), g.GetClassName()
    return g


def arrays(data):
    """The arrays of a vtkPointData, vtkCellData or vtkFieldData by name, as numpy arrays."""
    return {data.GetArrayName(i): vtk_to_numpy(data.GetArray(i))
            for i in range(data.GetNumberOfArrays())}
