tshape scan --sarif tests/fixtures/scan/attacks/zip_local_name.pt tests/fixtures/scan/attacks/lambda.keras
